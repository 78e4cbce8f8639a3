// The adapters run offline, and every asset URL the scenarios name fails to download. A fetch of
// an http(s) URL fails once its host lookup fails, and two lookups may fail in either order, so
// the durable loop, which names the first download to fail in time (docs/mastra-measurements.md
// k50), named either of two http(s) assets from run to run. Here an http(s) fetch without
// credentials fails as Node's does offline (`TypeError: fetch failed`, cause ENOTFOUND), after
// the same short delay for every URL: the failures come in request order, still later than a
// data URI or a scheme fetch does not know. Every other request goes to Node's fetch unchanged.

const nodeFetch = globalThis.fetch;
const LOOKUP_MS = 25;

function urlOf(input) {
  try {
    if (typeof input === 'string') return new URL(input);
    if (input instanceof URL) return input;
    if (input && typeof input.url === 'string') return new URL(input.url);
  } catch {
    return null;
  }
  return null;
}

globalThis.fetch = function offlineFetch(input, init) {
  const url = urlOf(input);
  if (url && (url.protocol === 'http:' || url.protocol === 'https:') && !url.username && !url.password) {
    const cause = Object.assign(new Error(`getaddrinfo ENOTFOUND ${url.hostname}`), { code: 'ENOTFOUND', hostname: url.hostname });
    return new Promise((_, reject) => setTimeout(() => reject(new TypeError('fetch failed', { cause })), LOOKUP_MS));
  }
  return nodeFetch(input, init);
};

// Module resolution hooks (node:module register): the Breakwater build the user names imports
// @mastra/core and zod as externals. They, and this adapter's own imports of them, resolve from
// adapters/mastra (its pinned @mastra/core 1.71.0 and lockfile), so Breakwater, the shared
// processor compiler and the scripted model all use one @mastra/core instance: `instanceof
// TripWire`, `MessageList.prototype` and `RequestContext` are the same objects on both sides.
let base;

export async function initialize(data) {
  base = data.base;
}

const SHARED = /^(@mastra\/core|zod)(\/|$)/;

export async function resolve(specifier, context, nextResolve) {
  if (SHARED.test(specifier)) return nextResolve(specifier, { ...context, parentURL: base });
  return nextResolve(specifier, context);
}

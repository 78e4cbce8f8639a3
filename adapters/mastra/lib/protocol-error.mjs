/** A request that does not follow the protocol: names the JSON path and what was expected there. */
export class ProtocolError extends Error {
  constructor(path, expected) {
    super(`${path}: ${expected}`);
    this.name = 'ProtocolError';
    this.path = path;
    this.expected = expected;
  }
}

export const isPlainObject = v => typeof v === 'object' && v !== null && !Array.isArray(v);

export function describe(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

export function expectObject(v, path) {
  if (!isPlainObject(v)) throw new ProtocolError(path, `expected an object, got ${describe(v)}`);
  return v;
}

export function expectString(v, path) {
  if (typeof v !== 'string') throw new ProtocolError(path, `expected a string, got ${describe(v)}`);
  return v;
}

export function expectOneOf(v, choices, path) {
  if (!choices.includes(v)) {
    throw new ProtocolError(path, `expected one of ${choices.join('|')}, got ${JSON.stringify(v) ?? describe(v)}`);
  }
  return v;
}

export function expectOnlyKeys(obj, allowed, path) {
  for (const key of Object.keys(obj)) {
    if (!allowed.includes(key)) {
      throw new ProtocolError(`${path}.${key}`, `unexpected field (allowed: ${allowed.join(', ')})`);
    }
  }
}

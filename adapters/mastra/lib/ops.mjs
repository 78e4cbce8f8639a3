// The "ops" request: a sequence of operations on one new real MessageList, and a report of its
// final state. Wire format and semantics: docs/protocol-mastra-ops.md.
import { MessageList } from '@mastra/core/agent/message-list';

import {
  ProtocolError,
  describe,
  expectObject,
  expectOneOf,
  expectOnlyKeys,
  expectString,
  isPlainObject,
} from './protocol-error.mjs';

const SOURCES = ['memory', 'input', 'response', 'context'];
const ADD_SOURCES = [...SOURCES, 'user', 'system'];
const VIEWS = ['all', 'remembered', 'input', 'response'];

// op name -> [allowed keys, validator of the remaining fields]
const OP_SHAPES = {
  add: [['op', 'messages', 'source', 'merge'], (op, path) => {
    if (!('messages' in op)) throw new ProtocolError(`${path}.messages`, 'missing (message | string | array)');
    expectOneOf(op.source, ADD_SOURCES, `${path}.source`);
    if (op.merge !== undefined && op.merge !== null && typeof op.merge !== 'boolean') {
      throw new ProtocolError(`${path}.merge`, `expected true|false|null, got ${describe(op.merge)}`);
    }
    validateMessageInput(op.messages, `${path}.messages`, 0);
  }],
  removeByIds: [['op', 'ids'], (op, path) => expectStringArray(op.ids, `${path}.ids`)],
  clearInput: [['op'], () => {}],
  clearResponse: [['op'], () => {}],
  clearAll: [['op'], () => {}],
  drainUnsaved: [['op'], () => {}],
  addSystem: [['op', 'message', 'tag'], (op, path) => {
    if (!('message' in op)) throw new ProtocolError(`${path}.message`, 'missing (string | system message | array | null)');
    expectOptionalTag(op.tag, `${path}.tag`);
    validateMessageInput(op.message, `${path}.message`, 0);
  }],
  replaceAllSystemMessages: [['op', 'messages'], (op, path) => {
    if (!Array.isArray(op.messages)) throw new ProtocolError(`${path}.messages`, `expected an array, got ${describe(op.messages)}`);
    validateMessageInput(op.messages, `${path}.messages`, 0);
  }],
  clearSystemMessages: [['op', 'tag'], (op, path) => expectOptionalTag(op.tag, `${path}.tag`)],
  checker: [['op'], () => {}],
  getSource: [['op', 'id'], (op, path) => expectString(op.id, `${path}.id`)],
  view: [['op', 'name'], (op, path) => expectOneOf(op.name, VIEWS, `${path}.name`)],
};

function expectStringArray(v, path) {
  if (!Array.isArray(v)) throw new ProtocolError(path, `expected an array of strings, got ${describe(v)}`);
  v.forEach((x, i) => expectString(x, `${path}[${i}]`));
}

function expectOptionalTag(v, path) {
  if (v !== undefined && v !== null) expectString(v, path);
}

/** Messages are passed to Mastra as they are (Mastra decides what it refuses); only `$ref` is checked. */
function validateMessageInput(v, path, depth) {
  if (Array.isArray(v)) {
    v.forEach((x, i) => validateMessageInput(x, `${path}[${i}]`, depth + 1));
  } else if (isPlainObject(v) && '$ref' in v) {
    expectOnlyKeys(v, ['$ref'], path);
    expectString(v.$ref, `${path}.$ref`);
  }
}

/** Validate the common fields of an ops / bench-ops request; returns {thread, ops, clock}. */
export function validateOpsRequest(req) {
  const thread = validateThread(req.thread);
  if (!Array.isArray(req.ops)) throw new ProtocolError('$.ops', `expected an array of operations, got ${describe(req.ops)}`);
  req.ops.forEach((op, i) => {
    const path = `$.ops[${i}]`;
    expectObject(op, path);
    if (typeof op.op !== 'string') throw new ProtocolError(`${path}.op`, `expected an operation name, got ${describe(op.op)}`);
    const shape = OP_SHAPES[op.op];
    if (!shape) throw new ProtocolError(`${path}.op`, `expected one of ${Object.keys(OP_SHAPES).join('|')}, got ${JSON.stringify(op.op)}`);
    expectOnlyKeys(op, shape[0], path);
    shape[1](op, path);
  });
  const clock = validateClock(req.clock);
  return { thread, ops: req.ops, clock };
}

function validateThread(thread) {
  if (thread === undefined || thread === null) return null;
  expectObject(thread, '$.thread');
  expectOnlyKeys(thread, ['threadId', 'resourceId'], '$.thread');
  expectString(thread.threadId, '$.thread.threadId');
  if (thread.resourceId !== undefined && thread.resourceId !== null) expectString(thread.resourceId, '$.thread.resourceId');
  return thread;
}

function validateClock(clock) {
  if (clock === undefined || clock === null) return null;
  expectObject(clock, '$.clock');
  expectOnlyKeys(clock, ['start', 'step'], '$.clock');
  if (!Number.isFinite(clock.start)) throw new ProtocolError('$.clock.start', `expected a number (ms), got ${describe(clock.start)}`);
  const step = clock.step ?? 1;
  if (!Number.isFinite(step)) throw new ProtocolError('$.clock.step', `expected a number (ms), got ${describe(clock.step)}`);
  return { start: clock.start, step };
}

// ---- decoding wire messages into what Mastra is handed ----

/**
 * A fresh copy of a wire message value: `{"$ref": id}` becomes the object on the list with that
 * id; an object's numeric `createdAt` becomes a Date. Everything else is copied as is, so Mastra
 * mutating what it is handed never leaks into the request.
 */
function decodeMessages(v, list) {
  if (Array.isArray(v)) return v.map(x => decodeMessages(x, list));
  if (isPlainObject(v)) {
    if ('$ref' in v) {
      const found = list.messages.find(m => m.id === v.$ref);
      if (!found) throw Object.assign(new Error(`no message with id ${v.$ref} on the list`), { name: 'REF_NOT_FOUND' });
      return found;
    }
    const copy = structuredClone(v);
    if (typeof copy.createdAt === 'number') copy.createdAt = new Date(copy.createdAt);
    return copy;
  }
  return v;
}

// ---- a deterministic clock ----

const RealDate = globalThis.Date;

/** Runs fn with Date.now() / new Date() reading start, start+step, ... (ms). */
function withClock(clock, fn) {
  if (!clock) return fn();
  let next = clock.start;
  const tick = () => {
    const t = next;
    next += clock.step;
    return t;
  };
  class ClockDate extends RealDate {
    constructor(...args) {
      if (args.length === 0) super(tick());
      else super(...args);
    }
    static now() {
      return tick();
    }
    static [Symbol.hasInstance](x) {
      return x instanceof RealDate;
    }
  }
  globalThis.Date = ClockDate;
  try {
    return fn();
  } finally {
    globalThis.Date = RealDate;
  }
}

// ---- running ----

export function newList(thread) {
  let counter = 0;
  return new MessageList({
    threadId: thread?.threadId,
    resourceId: thread?.resourceId ?? undefined,
    generateMessageId: () => `gen-${++counter}`,
  });
}

function errorOf(err) {
  const error = (err && (err.id || err.name)) || 'Error';
  const message = String(err?.message ?? err).split('\n')[0].slice(0, 300);
  return { ok: false, error, message };
}

const ids = messages => messages.map(m => m.id);

function runOp(list, op, ctx) {
  switch (op.op) {
    case 'add':
      list.add(decodeMessages(op.messages, list), op.source, op.merge === false ? { merge: false } : undefined);
      return null;
    case 'removeByIds':
      return ids(list.removeByIds(op.ids));
    case 'clearInput':
      return ids(list.clear.input.db());
    case 'clearResponse':
      return ids(list.clear.response.db());
    case 'clearAll':
      return ids(list.clear.all.db());
    case 'drainUnsaved':
      return ids(list.drainUnsavedMessages());
    case 'addSystem':
      list.addSystem(decodeMessages(op.message, list), op.tag ?? undefined);
      return null;
    case 'replaceAllSystemMessages':
      list.replaceAllSystemMessages(decodeMessages(op.messages, list));
      return null;
    case 'clearSystemMessages':
      list.clearSystemMessages(op.tag ?? undefined);
      return null;
    case 'checker': {
      ctx.checker = list.makeMessageSourceChecker();
      const c = ctx.checker;
      return { memory: [...c.memory], input: [...c.input], response: [...c.output], context: [...c.context] };
    }
    case 'getSource': {
      if (!ctx.checker) throw Object.assign(new Error('getSource before any checker op'), { name: 'NO_CHECKER' });
      const msg = list.messages.find(m => m.id === op.id);
      return msg ? ctx.checker.getSource(msg) : null;
    }
    case 'view':
      return ids(list.get[op.name === 'all' ? 'all' : op.name].db());
    default:
      throw new Error(`unreachable op ${op.op}`);
  }
}

/** Run a validated op sequence on a new list; returns {results, list}. */
export function runOps({ thread, ops, clock }, { withResults = true } = {}) {
  return withClock(clock, () => {
    const list = newList(thread);
    const ctx = { checker: null };
    const results = withResults ? [] : null;
    for (const op of ops) {
      try {
        const value = runOp(list, op, ctx);
        if (withResults) results.push({ ok: true, value: value ?? null });
      } catch (err) {
        if (withResults) results.push(errorOf(err));
      }
    }
    return { results, list };
  });
}

// ---- reporting state ----

const jsonClean = v => (v === undefined ? null : JSON.parse(JSON.stringify(v)));

function ms(d) {
  if (d instanceof RealDate) return d.getTime();
  if (typeof d === 'number') return d;
  return d == null ? null : String(d);
}

export function reportPart(part) {
  if (!isPlainObject(part)) return jsonClean(part);
  const { createdAt, ...rest } = part;
  const out = jsonClean(rest);
  if (createdAt != null) out.stamped = true;
  return out;
}

export function reportMessage(m) {
  const { format, parts, ...otherContent } = m.content ?? {};
  const out = {
    id: m.id,
    role: m.role,
    createdAt: ms(m.createdAt),
    threadId: m.threadId ?? null,
    resourceId: m.resourceId ?? null,
    parts: Array.isArray(parts) ? parts.map(reportPart) : jsonClean(parts),
  };
  const other = jsonClean(otherContent);
  if (Object.keys(other).length > 0) out.content = other;
  return out;
}

/** The reply's `state`: messages in list order, sources (live sets), detached set members, system buckets. */
export function reportState(list) {
  const messages = list.messages;
  const sm = list.stateManager;
  const sets = {
    memory: sm.getMemoryMessages(),
    input: sm.getUserMessages(),
    response: sm.getResponseMessages(),
    context: sm.getContextMessages(),
  };
  const onList = new Set(messages);
  const sources = {};
  const detached = {};
  for (const name of SOURCES) {
    sources[name] = messages.filter(m => sets[name].has(m)).map(m => m.id);
    detached[name] = [...sets[name]].filter(m => !onList.has(m)).map(m => m.id);
  }
  return {
    messages: messages.map(reportMessage),
    sources,
    detached,
    system: {
      untagged: jsonClean(list.systemMessages),
      tagged: Object.entries(list.taggedSystemMessages).map(([tag, msgs]) => [tag, jsonClean(msgs)]),
    },
  };
}

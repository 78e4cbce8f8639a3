// Conversion between guardspec's scenario/observation JSON (model/codec.py, model/schemas/) and
// what real Mastra handles: JavaScript values, MastraDBMessage (format 2), AI SDK system
// messages, and the language-model prompt. The representation rules are listed in
// docs/protocol.md ("Representation"); nothing here normalises Mastra-chosen values (ids,
// timestamps, part stamps): that is src/guardspec/mastra_normalise.py's job.

const isObj = v => typeof v === 'object' && v !== null && !Array.isArray(v);
// metadata reported as none: only a plain `{}` (the normaliser folds `{}` alike); an empty class
// instance is reported as the instance it is
const isEmptyPlain = v => isObj(v) && [Object.prototype, null].includes(Object.getPrototypeOf(v)) &&
  Reflect.ownKeys(v).length === 0;

// ---- JavaScript values --------------------------------------------------------------------

/**
 * A decoding context: functions and symbols are compared by identity, and the identity is
 * their name, so one context (one run) hands out one function/symbol per name.
 */
export function newValueContext() {
  const functions = new Map();
  const symbols = new Map();
  const classes = new Map();
  return {
    fn(name) {
      if (!functions.has(name)) {
        const f = { [name]: function () { return undefined; } }[name];
        functions.set(name, f);
      }
      return functions.get(name);
    },
    sym(name) {
      if (!symbols.has(name)) symbols.set(name, Symbol(name));
      return symbols.get(name);
    },
    cls(name) {
      if (!classes.has(name)) classes.set(name, { [name]: class {} }[name]);
      return classes.get(name);
    },
    getters: new Map(),
  };
}

// What each getter this adapter made stands for, so that a getter still in place after the call
// is reported as the model writes it ({$getter, value} or {$getter, throws}), without calling it.
const GETTERS = new WeakMap();

/**
 * The getter a codec accessor (`{$getter, value}` or `{$getter, throws: true}`) stands for: one
 * function per name per run; a name given with another value (or throwing) is another getter,
 * returning its own value, as the model reads it. `decode` turns the given value into what the
 * getter returns (a system message's content is decoded as content, `systemContentToMastra`).
 */
function getterOf(pv, ctx, decode = decodeValue) {
  const name = pv.$getter;
  const throws = pv.throws === true;
  const key = JSON.stringify([name, throws, throws ? null : pv.value ?? null, 'value' in pv]);
  if (!ctx.getters.has(key)) {
    const value = 'value' in pv ? decode(pv.value, ctx) : undefined;
    const get = throws ? function () { throw new Error(`getter ${name} throws`); } : function () { return value; };
    Object.defineProperty(get, 'name', { value: name });
    GETTERS.set(get, throws ? { $getter: name, throws: true } : { $getter: name, value: 'value' in pv ? pv.value : { $undefined: true } });
    ctx.getters.set(key, get);
  }
  return ctx.getters.get(key);
}

const isGetter = pv => isObj(pv) && '$getter' in pv;

/** Own property `k` of `target` from its codec JSON: an accessor for a `$getter`, else data. */
export function defineOwn(target, k, pv, ctx, decode = decodeValue) {
  if (isGetter(pv)) Object.defineProperty(target, k, { get: getterOf(pv, ctx, decode), enumerable: true, configurable: true });
  else target[k] = decode(pv, ctx);
  return target;
}

function defineProps(target, props, ctx) {
  for (const [k, pv] of Object.entries(props ?? {})) defineOwn(target, k, pv, ctx);
  return target;
}

/** A codec value (model/codec.py value_to_json) as a fresh JavaScript value. */
export function decodeValue(j, ctx) {
  if (j === null || typeof j !== 'object') return j;
  if (Array.isArray(j)) return j.map(x => decodeValue(x, ctx));
  if ('$undefined' in j) return undefined;
  if ('$bigint' in j) return BigInt(j.$bigint);
  if ('$number' in j) return Number(j.$number);
  if ('$function' in j) return ctx.fn(j.$function);
  if ('$symbol' in j) return ctx.sym(j.$symbol);
  if ('$class' in j) return defineProps(new (ctx.cls(j.$class))(), j.props, ctx);
  if ('$getter' in j) return decodeValue(j.value, ctx); // a bare getter outside an object: its value
  if ('$object' in j) return defineProps({}, j.$object, ctx);
  return defineProps({}, j, ctx);
}

/** A JavaScript value back to codec JSON (getters are reported as getters, never called). */
export function encodeValue(v, seen = new Set()) {
  if (v === undefined) return { $undefined: true };
  if (v === null || typeof v === 'boolean' || typeof v === 'string') return v;
  if (typeof v === 'number') {
    if (Number.isNaN(v)) return { $number: 'NaN' };
    if (!Number.isFinite(v)) return { $number: v > 0 ? 'Infinity' : '-Infinity' };
    return v;
  }
  if (typeof v === 'bigint') return { $bigint: String(v) };
  if (typeof v === 'function') return { $function: v.name || 'anonymous' };
  if (typeof v === 'symbol') return { $symbol: v.description ?? '' };
  if (v instanceof Date) return v.getTime();
  if (seen.has(v)) return { $undefined: true };
  seen.add(v);
  try {
    if (Array.isArray(v)) return v.map(x => encodeValue(x, seen));
    const props = {};
    for (const k of Object.keys(v)) {
      const d = Object.getOwnPropertyDescriptor(v, k);
      if (d.get || d.set) props[k] = GETTERS.get(d.get) ?? { $getter: d.get?.name || 'get' };
      else props[k] = encodeValue(d.value, seen);
    }
    const proto = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null && proto?.constructor?.name) {
      return { $class: proto.constructor.name, props };
    }
    if (Object.keys(props).some(k => k.startsWith('$'))) return { $object: props };
    return props;
  } finally {
    seen.delete(v);
  }
}

/** An own accessor of `o` as codec JSON (never called), or undefined for a data property. */
function ownGetter(o, k) {
  const d = Object.getOwnPropertyDescriptor(o, k);
  return d && (d.get || d.set) ? GETTERS.get(d.get) ?? { $getter: d.get?.name || 'get' } : undefined;
}

/** An own property as codec JSON: a getter is reported as a getter, never called. */
function encodeOwn(o, k) {
  return ownGetter(o, k) ?? encodeValue(o[k]);
}

/** A copy that keeps functions, symbols, getters' identity and class instances (unlike structuredClone). */
export function deepCopy(v) {
  if (v === null || typeof v !== 'object') return v;
  if (v instanceof Date) return new Date(v.getTime());
  if (Array.isArray(v)) return v.map(deepCopy);
  const out = Object.create(Object.getPrototypeOf(v));
  for (const k of Object.keys(v)) {
    const d = Object.getOwnPropertyDescriptor(v, k);
    if (d.get || d.set) Object.defineProperty(out, k, d);
    else out[k] = deepCopy(d.value);
  }
  return out;
}

// ---- parts and messages: model JSON -> Mastra -----------------------------------------------

function setIf(target, key, j, ctx) {
  if (j !== undefined) {
    const v = decodeValue(j, ctx);
    if (v !== undefined) target[key] = v;
  }
}

export function partToMastra(p, ctx) {
  let out;
  switch (p.type) {
    case 'text':
      out = { type: 'text', text: decodeValue(p.text, ctx) };
      setIf(out, 'providerOptions', p.providerOptions, ctx);
      break;
    case 'reasoning':
      out = { type: 'reasoning', reasoning: p.text, details: [{ type: 'text', text: p.text }] };
      break;
    case 'file':
    case 'image':
      out = { type: 'file', mimeType: p.mediaType, data: decodeValue(p.data, ctx) };
      break;
    case 'tool-invocation': {
      const ti = { state: p.state, toolCallId: p.toolCallId, toolName: p.toolName };
      setIf(ti, 'args', p.args, ctx);
      setIf(ti, 'result', p.result, ctx);
      setIf(ti, 'errorText', p.errorText, ctx);
      setIf(ti, 'approval', p.approval, ctx);
      out = { type: 'tool-invocation', toolInvocation: ti };
      setIf(out, 'providerMetadata', p.providerMetadata, ctx);
      break;
    }
    default:
      throw new Error(`unknown part type ${p.type}`);
  }
  if (typeof p.createdAt === 'number') out.createdAt = p.createdAt;
  return out;
}

/** A model message (codec message_to_json) as a MastraDBMessage; parts null = no content. */
export function messageToMastra(m, ctx) {
  const out = { id: m.id, role: m.role, createdAt: new Date(m.createdAt ?? 0) };
  if (m.threadId !== undefined) out.threadId = m.threadId;
  if (m.resourceId !== undefined) out.resourceId = m.resourceId;
  if (m.parts !== null) {
    out.content = { format: 2, parts: m.parts.map(p => partToMastra(p, ctx)) };
    if (m.metadata !== undefined) {
      const md = decodeValue(m.metadata, ctx);
      if (md !== undefined) out.content.metadata = md;
    }
  }
  return out;
}

const TEXT_PART_KEYS = new Set(['type', 'text', 'providerOptions', 'createdAt']);

/** An object of type text with a `text` and no key but a text part's. */
function hasTextPartShape(x) {
  return isObj(x) && x.type === 'text' && 'text' in x && Object.keys(x).every(k => TEXT_PART_KEYS.has(k));
}

/** A text part as the scenario's JSON writes it: that shape, and an integer `createdAt` if any. */
function isTextPart(x) {
  return hasTextPartShape(x) && (x.createdAt === undefined || Number.isInteger(x.createdAt));
}

/** A system message's content from its codec JSON: a list of text parts as part objects (a
 * getter on a part's text stays a getter, docs/mastra-measurements.md §k), any other value as
 * it is (a text-typed object with other keys keeps them all, as the model does). */
function systemContentToMastra(c, ctx) {
  if (Array.isArray(c) && c.length > 0 && c.every(isTextPart)) {
    return c.map(x => {
      const part = defineProps({ type: 'text' }, { text: x.text }, ctx);
      setIf(part, 'providerOptions', x.providerOptions, ctx);
      setIf(part, 'createdAt', x.createdAt, ctx);
      return part;
    });
  }
  return decodeValue(c, ctx);
}

/** A model system message (codec system_to_json) as an AI SDK system message. Its content,
 * providerOptions and experimental_providerMetadata given as `{$getter}` are own accessors
 * (a getter's content value decoded as content). */
export function systemToMastra(s, ctx) {
  if (typeof s === 'string') return s;
  const out = { role: 'system' };
  if ('content' in s) defineOwn(out, 'content', s.content, ctx, systemContentToMastra);
  if ('providerOptions' in s) defineOwn(out, 'providerOptions', s.providerOptions, ctx);
  if ('experimental_providerMetadata' in s) defineOwn(out, 'experimental_providerMetadata', s.experimental_providerMetadata, ctx);
  return out;
}

/** A processor entry (codec entry_to_json): message, system message or {value}. */
export function entryToMastra(e, ctx) {
  if (Array.isArray(e)) return e.map(x => entryToMastra(x, ctx));
  if (isObj(e) && 'parts' in e) return messageToMastra(e, ctx);
  if (isObj(e) && e.role === 'system') return systemToMastra(e, ctx);
  if (isObj(e) && 'value' in e) return decodeValue(e.value, ctx);
  throw new Error('not an entry');
}

/** A caller message: a string, an entry, or a (nested) list of them. */
export function callerToMastra(c, ctx) {
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) return c.map(x => callerToMastra(x, ctx));
  return entryToMastra(c, ctx);
}

// ---- Mastra -> model JSON -------------------------------------------------------------------

function ms(d) {
  if (d instanceof Date) return d.getTime();
  if (typeof d === 'number') return d;
  if (typeof d === 'string') return new Date(d).getTime();
  return 0;
}

function putIf(target, key, v) {
  if (v !== undefined) target[key] = encodeValue(v);
}

/** Parts the model has no word for. `step-start` is Mastra's step boundary: dropped. */
const DROPPED_PART_TYPES = new Set(['step-start']);

export function partFromMastra(p) {
  if (!isObj(p) || DROPPED_PART_TYPES.has(p.type)) return null;
  let out;
  switch (p.type) {
    case 'text':
      out = { type: 'text', text: encodeValue(p.text) };
      putIf(out, 'providerOptions', p.providerOptions);
      break;
    case 'reasoning':
      out = { type: 'reasoning', text: typeof p.reasoning === 'string' && p.reasoning ? p.reasoning : (p.details ?? []).map(d => d.text ?? '').join('') };
      break;
    case 'file':
      // the part's own data (null stays null); a v5-shaped part holds it as `url`
      out = { type: 'file', data: encodeValue('data' in p ? p.data : p.url), mediaType: p.mimeType ?? p.mediaType ?? '' };
      break;
    case 'tool-invocation': {
      const ti = p.toolInvocation ?? {};
      out = { type: 'tool-invocation', toolCallId: ti.toolCallId, toolName: ti.toolName, state: ti.state };
      putIf(out, 'args', ti.args);
      putIf(out, 'result', ti.result);
      putIf(out, 'errorText', ti.errorText);
      putIf(out, 'approval', ti.approval);
      putIf(out, 'providerMetadata', p.providerMetadata);
      break;
    }
    default:
      // an unknown part type: reported as a text part naming it, so a comparison shows it
      out = { type: 'text', text: `<mastra part ${p.type}>` };
  }
  if (p.createdAt != null) out.createdAt = ms(p.createdAt);
  return out;
}

export function messageFromMastra(m) {
  const out = { id: m.id, role: m.role, createdAt: ms(m.createdAt) };
  if (m.threadId != null) out.threadId = m.threadId;
  if (m.resourceId != null) out.resourceId = m.resourceId;
  const parts = m.content?.parts;
  out.parts = Array.isArray(parts) ? parts.map(partFromMastra).filter(p => p !== null) : null;
  const md = m.content?.metadata;
  if (md !== undefined && !isEmptyPlain(md)) out.metadata = encodeValue(md);
  return out;
}

export function systemFromMastra(s) {
  if (typeof s === 'string') return { role: 'system', content: s };
  const out = { role: 'system' };
  if (!isObj(s)) return { role: 'system', content: encodeValue(s) };
  const getters = {};
  for (const k of ['content', 'providerOptions', 'experimental_providerMetadata']) {
    const g = ownGetter(s, k);
    if (g !== undefined) getters[k] = g;
  }
  if ('content' in getters) {
    out.content = getters.content;
  } else if ('content' in s) {
    const c = s.content;
    if (Array.isArray(c) && c.length > 0 && c.every(x => hasTextPartShape(x) && Object.getPrototypeOf(x) === Object.prototype)) {
      out.content = c.map(x => {
        const part = { type: 'text', text: encodeOwn(x, 'text') };
        putIf(part, 'providerOptions', x.providerOptions);
        if (x.createdAt != null) part.createdAt = ms(x.createdAt);
        return part;
      });
    } else if (isObj(c) && c.format === 2 && Array.isArray(c.parts) &&
               Object.keys(c).every(k => k === 'format' || k === 'parts' || k === 'metadata')) {
      // a stored-format message kept in a system bucket (replaceAllSystemMessages does not
      // convert): its content in the protocol's part shape (docs/protocol.md "Representation"),
      // its metadata as for messages (`{}` counts as none)
      out.content = { format: 2, parts: c.parts.map(partFromMastra).filter(p => p !== null) };
      const md = c.metadata;
      if (md !== undefined && !isEmptyPlain(md)) out.content.metadata = encodeValue(md);
    } else if (c !== undefined) {
      out.content = encodeValue(c);
    }
  }
  for (const k of ['providerOptions', 'experimental_providerMetadata']) {
    if (k in getters) out[k] = getters[k];
    else putIf(out, k, s[k]);
  }
  return out;
}

/**
 * The language-model prompt (LanguageModelV2Prompt) as model prompt entries. Mastra sends no
 * message ids, so prompt messages carry id "" and createdAt 0. A tool result message is folded
 * back onto the assistant tool call it answers: one tool-invocation part in state `result`
 * (`output.type` json → its value; any other output, e.g. a cached `{type:'text', value}`, as
 * the output object itself), `output-error` (error-text/error-json) or the call alone.
 */
export function promptFromMastra(prompt) {
  const out = [];
  // toolCallId -> the tool-invocation parts in `out`, in order: the same call id may come
  // twice, and each result answers the first call not yet answered (else the last)
  const callParts = new Map();
  const answered = new Set();
  for (const m of prompt ?? []) {
    if (m.role === 'system') {
      const s = { role: 'system', content: typeof m.content === 'string' ? m.content : encodeValue(m.content) };
      putIf(s, 'providerOptions', m.providerOptions);
      out.push(s);
      continue;
    }
    if (m.role === 'tool') {
      for (const c of m.content ?? []) {
        if (c.type !== 'tool-result') continue;
        const calls = callParts.get(c.toolCallId) ?? [];
        const part = calls.find(x => !answered.has(x)) ?? calls[calls.length - 1];
        if (part) answered.add(part);
        const o = c.output ?? {};
        const target = part ?? { type: 'tool-invocation', toolCallId: c.toolCallId, toolName: c.toolName, state: 'result' };
        if (o.type === 'error-text' || o.type === 'error-json') {
          target.state = 'output-error';
          // an undefined value (JSON.stringify of a function or symbol) is left out, as for every field
          putIf(target, 'errorText', o.value);
        } else {
          target.state = 'result';
          target.result = encodeValue(o.type === 'json' ? o.value : o);
        }
        if (!part) out.push({ id: '', role: 'assistant', createdAt: 0, parts: [target] });
      }
      continue;
    }
    const parts = [];
    const content = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content ?? [];
    for (const c of content) {
      if (c.type === 'text') {
        const p = { type: 'text', text: encodeValue(c.text) };
        putIf(p, 'providerOptions', c.providerOptions);
        parts.push(p);
      } else if (c.type === 'reasoning') {
        parts.push({ type: 'reasoning', text: c.text });
      } else if (c.type === 'file') {
        parts.push({ type: 'file', data: encodeValue(typeof c.data === 'string' ? c.data : String(c.data)), mediaType: c.mediaType });
      } else if (c.type === 'tool-call') {
        const p = { type: 'tool-invocation', toolCallId: c.toolCallId, toolName: c.toolName, state: 'call' };
        putIf(p, 'args', c.input);
        callParts.set(c.toolCallId, [...(callParts.get(c.toolCallId) ?? []), p]);
        parts.push(p);
      } else if (c.type === 'tool-result') {
        const p = { type: 'tool-invocation', toolCallId: c.toolCallId, toolName: c.toolName, state: 'result' };
        putIf(p, 'result', c.output?.type === 'json' ? c.output.value : c.output);
        parts.push(p);
      } else {
        parts.push({ type: 'text', text: `<prompt part ${c.type}>` });
      }
    }
    out.push({ id: '', role: m.role, createdAt: 0, parts });
  }
  return out;
}

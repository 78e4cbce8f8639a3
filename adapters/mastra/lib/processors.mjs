// The processor language (model/processors.py), compiled to JavaScript processors over a real
// MessageList: docs/protocol.md, "Compiling the processor language". Shared by the Mastra adapter
// (raw mode) and the Breakwater adapter (adapters/breakwater, guarded mode).
import { MessageList, TripWire } from '@mastra/core/agent';

import { decodeValue, deepCopy, defineOwn, entryToMastra, systemToMastra } from './convert.mjs';

const isObj = v => typeof v === 'object' && v !== null && !Array.isArray(v);

// ---- the processor language, compiled ------------------------------------------------------

function firstTextEdited(m, text) {
  const parts = Array.isArray(m.content?.parts) ? m.content.parts : [];
  const i = parts.findIndex(p => isObj(p) && p.type === 'text');
  const newParts = parts.slice();
  if (i >= 0) newParts[i] = { ...parts[i], text };
  else newParts.push({ type: 'text', text });
  return { ...m, content: { ...(m.content ?? { format: 2 }), parts: newParts } };
}

function runStep(step, messageList, ctx) {
  switch (step.op) {
    case 'add': {
      const entries = step.entries.map(e => entryToMastra(e, ctx));
      const opts = step.merge === true || step.merge === false ? { merge: step.merge } : undefined;
      messageList.add(entries, step.source ?? 'input', opts);
      return;
    }
    case 'removeByIds':
      messageList.removeByIds(step.ids);
      return;
    case 'addSystem':
      messageList.addSystem(systemToMastra(step.message, ctx), step.tag ?? undefined);
      return;
    case 'replaceAllSystemMessages':
      messageList.replaceAllSystemMessages(step.entries.map(e => entryToMastra(e, ctx)));
      return;
    case 'clearInput':
      messageList.clear.input.db();
      return;
    case 'editSystem': {
      const bucket = step.tag == null ? messageList.getSystemMessages() : messageList.getSystemMessages(step.tag) ?? [];
      const target = bucket[step.index];
      if (!isObj(target)) throw new TypeError('no system message at that index');
      // a `$getter` value makes the field an own accessor (Object.defineProperty), any other
      // value is assigned
      defineOwn(target, step.field, step.value, ctx);
      return;
    }
    case 'editMessage': {
      const m = messageList.get.all.db().find(x => x.id === step.id);
      if (!m) throw new TypeError(`no message ${JSON.stringify(step.id)} on the list`);
      const text = decodeValue(step.text, ctx);
      if (!isObj(m.content)) m.content = { format: 2, parts: [] };
      if (!Array.isArray(m.content.parts)) m.content.parts = [];
      const part = m.content.parts.find(p => isObj(p) && p.type === 'text');
      if (part) part.text = text;
      else m.content.parts.push({ type: 'text', text });
      return;
    }
    default:
      throw new Error(`unknown step ${step.op}`);
  }
}

function buildArray(spec, messages, messageList, ctx) {
  let items;
  if ((spec.base ?? 'received') === 'received') items = [...messages];
  else if (spec.base === 'list') items = [...messageList.get.all.db()];
  else items = [];
  const copy = spec.copy ?? 'none';
  if (copy === 'shallow') items = items.map(m => ({ ...m }));
  else if (copy === 'deep') items = items.map(deepCopy);
  const drop = spec.drop ?? [];
  if (drop.length) items = items.filter(m => !(isObj(m) && drop.includes(m.id)));
  for (const edit of spec.edits ?? []) {
    const [kind, e] = Object.entries(edit)[0];
    items = items.map(m => {
      if (!isObj(m) || m.id !== e.id) return m;
      if (kind === 'editText') return firstTextEdited(m, decodeValue(e.text, ctx));
      if (kind === 'setRole') return { ...m, role: e.role };
      return { ...m, id: e.newId };
    });
  }
  for (const a of spec.append ?? []) items.push(entryToMastra(a, ctx));
  return items;
}

function buildReturn(r, args, ctx) {
  const { messages, systemMessages, messageList } = args;
  if (r === 'sameList') return messageList;
  if (r === 'otherList') return new MessageList();
  const [kind, v] = Object.entries(r)[0];
  if (kind === 'primitive') return decodeValue(v, ctx);
  if (kind === 'array') return buildArray(v, messages, messageList, ctx);
  // object
  const out = v.proto != null ? new (ctx.cls(v.proto))() : {};
  if ('messages' in v) {
    out.messages = 'array' in v.messages ? buildArray(v.messages.array, messages, messageList, ctx) : decodeValue(v.messages.value, ctx);
  }
  if ('systemMessages' in v) {
    const s = v.systemMessages;
    if (s === 'received') out.systemMessages = systemMessages;
    else if ('entries' in s) out.systemMessages = s.entries.map(e => entryToMastra(e, ctx));
    else out.systemMessages = decodeValue(s.value, ctx);
  }
  return out;
}

export function compileProcessor(spec, ctx) {
  const proc = {
    id: spec.id,
    name: spec.id,
    async processInput(args) {
      const { messageList, abort } = args;
      for (const step of spec.steps ?? []) runStep(step, messageList, ctx);
      const end = spec.end ?? { return: { primitive: { $undefined: true } } };
      const [kind, v] = Object.entries(end)[0];
      switch (kind) {
        case 'return':
          return buildReturn(v, args, ctx);
        case 'abort':
          return abort(v);
        case 'tripwire':
          throw new TripWire(v);
        case 'throw':
          throw new Error(v);
        case 'abortThenThrow':
          try {
            abort(v.reason);
          } catch {
            throw new Error(v.message);
          }
          return undefined;
        case 'abortWrapThrow':
          try {
            abort(v.reason);
          } catch (e) {
            throw new Error(v.message, { cause: e });
          }
          return undefined;
        case 'abortFinallyThrow':
          try {
            return abort(v.reason);
          } finally {
            // eslint-disable-next-line no-unsafe-finally
            throw new Error(v.message);
          }
        default:
          throw new Error(`unknown ending ${kind}`);
      }
    },
  };
  const hooks = spec.hooks ?? ['processInput'];
  if (!hooks.includes('processInput')) delete proc.processInput;
  for (const h of hooks) {
    if (h !== 'processInput') proc[h] = async () => undefined;
  }
  return proc;
}


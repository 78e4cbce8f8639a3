// The "run" request, mode "raw": one scenario (model/schemas/scenario.schema.json) on a real
// Mastra Agent with the scenario's processors compiled to JavaScript, the scripted model, and
// MockMemory over InMemoryStore. Answers an observation (model/schemas/observation.schema.json).
// Protocol: docs/protocol.md. What raw mode is: reference/raw_runner.py.
import { Agent, MessageList, TripWire } from '@mastra/core/agent';
import { MockMemory } from '@mastra/core/memory';
import { InMemoryStore } from '@mastra/core/storage';
import { Mastra } from '@mastra/core/mastra';
import { createTool } from '@mastra/core/tools';
import { z } from 'zod';

import { scriptedModel, isTitleRequest } from '../probes/scripted-model.mjs';
import {
  newValueContext,
  decodeValue,
  deepCopy,
  entryToMastra,
  callerToMastra,
  messageToMastra,
  systemToMastra,
  messageFromMastra,
  systemFromMastra,
  promptFromMastra,
} from './convert.mjs';
import { ProtocolError } from './protocol-error.mjs';

const isObj = v => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The observation fields a raw run reports, by loop (docs/protocol.md). */
export const RAW_FIELDS = {
  generate: ['outcome', 'prompts', 'stored', 'title', 'result', 'list'],
  stream: ['outcome', 'prompts', 'stored', 'title', 'result', 'list'],
  durable: ['outcome', 'prompts', 'stored', 'title'],
};

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
      target[step.field] = decodeValue(step.value, ctx);
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

// ---- RBAC and the policy engine as plain processors (reference/raw_runner.py) ---------------

export function rbacDenial(agent, actor) {
  if (!actor) return "no actor in request context (key 'breakwater.actor')";
  if (actor.kind == null) return 'principal kind is not declared';
  const kinds = agent.allowedPrincipalKinds ?? ['human'];
  if (!kinds.includes(actor.kind)) return `principal kind '${actor.kind}' is not in allowed principal kinds [${kinds.join(', ')}]`;
  const roles = agent.allowedRoles ?? ['user'];
  if (!roles.includes(actor.role)) return `role '${actor.role}' is not in allowed roles [${roles.join(', ')}]`;
  return null;
}

class NotClassified extends Error {}

function clonable(v) {
  try {
    structuredClone(v);
    return true;
  } catch {
    return false;
  }
}

function jsonText(v) {
  if (v === undefined) return null;
  if (!clonable(v)) throw new NotClassified('uncloneable value');
  return JSON.stringify(v, (k, x) => (typeof x === 'bigint' ? String(x) : x));
}

function cachedOutput(p) {
  const m = p.providerMetadata?.mastra;
  if (isObj(m) && m.modelOutput != null) return m.modelOutput;
  return undefined;
}

/** reference/reading.py message_texts, over a MastraDBMessage. */
export function messageTexts(m) {
  if (!clonable(m.content?.metadata)) throw new NotClassified('uncloneable value');
  const out = [];
  for (const p of m.content?.parts ?? []) {
    if (!isObj(p)) continue;
    if (p.type === 'text') {
      if (typeof p.text !== 'string') throw new NotClassified('non-string text');
      if (!clonable(p.providerOptions)) throw new NotClassified('uncloneable value');
      out.push(p.text);
    } else if (p.type === 'reasoning') {
      const t = p.reasoning;
      if (typeof t !== 'string') throw new NotClassified('non-string text');
      out.push(t);
    } else if (p.type === 'tool-invocation') {
      const ti = p.toolInvocation ?? {};
      let result = cachedOutput(p);
      if (result === undefined) result = ti.result;
      const reason = isObj(ti.approval) ? ti.approval.reason : undefined;
      for (const v of [ti.args, result, ti.errorText, reason]) {
        const t = jsonText(v);
        if (t !== null) out.push(t);
      }
      if (!clonable(p.providerMetadata)) throw new NotClassified('uncloneable value');
    } else if (p.type === 'file') {
      out.push(p.mimeType ?? p.mediaType);
      if (typeof p.data === 'string') out.push(p.data);
      else if (!clonable(p.data)) throw new NotClassified('uncloneable value');
    }
  }
  return out;
}

function policyText(messageList) {
  const texts = [];
  for (const m of messageList.get.input.db()) {
    try {
      texts.push(...messageTexts(m));
    } catch (e) {
      if (!(e instanceof NotClassified)) throw e;
    }
  }
  return texts.join('\n');
}

function decide(policy, text) {
  if (policy.kind === 'denyPatterns') return policy.patterns.some(p => text.includes(p)) ? 'deny' : 'allow';
  if (policy.kind === 'allow') return 'allow';
  return 'error';
}

function rbacProcessor(agent, actor, seen) {
  return {
    id: 'breakwater-rbac',
    name: 'breakwater-rbac',
    async processInput({ messageList, abort }) {
      seen.list = messageList;
      const denial = rbacDenial(agent, actor);
      if (denial) abort(denial);
      return undefined;
    },
  };
}

function policyProcessor(agent, seen) {
  return {
    id: 'breakwater-policy-engine',
    name: 'breakwater-policy-engine',
    async processInput({ messageList, abort }) {
      seen.list = messageList;
      const text = policyText(messageList);
      for (const p of agent.policies) {
        const d = decide(p, text);
        if (d === 'deny') abort(`policy '${p.name}' denied the input`);
        if (d === 'error') throw new Error('policy evaluation failed');
      }
      return undefined;
    },
  };
}

// ---- client tools (model/agent.py Mapping, reference/mapping.py) -----------------------------

function clientTools(agent) {
  const tools = {};
  for (const t of agent.clientTools ?? []) {
    const spec = { id: t.name, description: `client tool ${t.name}`, inputSchema: z.any() };
    const m = t.mapping;
    if (m) {
      const kind = m.kind ?? 'text';
      const prefix = m.prefix ?? 'mapped:';
      spec.toModelOutput = output => {
        if (kind === 'throws') throw new Error('toModelOutput throws');
        if (kind === 'null') return null;
        return { type: 'text', value: prefix + JSON.stringify(output) };
      };
    }
    tools[t.name] = createTool(spec);
  }
  return tools;
}

// ---- observing -------------------------------------------------------------------------------

const SOURCES = ['memory', 'input', 'response', 'context'];

export function listView(list) {
  const sm = list.stateManager;
  const sets = {
    memory: sm.getMemoryMessages(),
    input: sm.getUserMessages(),
    response: sm.getResponseMessages(),
    context: sm.getContextMessages(),
  };
  return {
    messages: list.get.all.db().map(m => ({
      message: messageFromMastra(m),
      sources: SOURCES.filter(s => sets[s].has(m)),
    })),
    untagged: (list.getSystemMessages() ?? []).map(systemFromMastra),
    tagged: Object.entries(list.taggedSystemMessages ?? {}).map(([t, b]) => [t, b.map(systemFromMastra)]),
  };
}

async function storedView(memory, storage, threadId) {
  const thread = await memory.getThreadById({ threadId });
  if (!thread) return { stored: [], title: '' };
  const { messages } = await memory.recall({ threadId, perPage: false });
  const rows = [...messages].sort((a, b) => new Date(a.createdAt) - new Date(b.createdAt));
  return { stored: rows.map(messageFromMastra), title: thread.title ?? '' };
}

function errorText(err) {
  // the outermost MastraError id (AGENT_GENERATE_FAILED, ...), else the error's name: message
  if (err?.id) return String(err.id);
  return `${err?.name ?? 'Error'}: ${String(err?.message ?? err).split('\n')[0]}`;
}

const sleep = t => new Promise(r => setTimeout(r, t));

// ---- one run -----------------------------------------------------------------------------------

function validateRun(req) {
  if (req.mode !== 'raw' && req.mode !== 'guarded') throw new ProtocolError('$.mode', `expected "raw" or "guarded", got ${JSON.stringify(req.mode)}`);
  const s = req.scenario;
  if (!isObj(s)) throw new ProtocolError('$.scenario', 'expected a scenario object');
  if (!isObj(s.agent)) throw new ProtocolError('$.scenario.agent', 'expected an object');
  if (!isObj(s.call)) throw new ProtocolError('$.scenario.call', 'expected an object');
  return s;
}

/** Quiet by default: Mastra logs a warning per swallowed durable processor error, etc. */
const silentLogger = false;

export async function runScenario(req) {
  const scenario = validateRun(req);
  if (req.mode === 'guarded') return { status: 'skipped', reason: 'mode "guarded": the guard is not part of this adapter (raw Mastra only)' };
  const agentSpec = {
    id: 'agent',
    instructions: 'You are a guarded agent.',
    allowedRoles: ['user'],
    allowedPrincipalKinds: ['human'],
    policies: [],
    processors: [],
    clientTools: [],
    memory: null,
    ...scenario.agent,
  };
  const call = { loop: 'generate', messages: [], actor: null, memory: null, reply: 'ok', context: [], now: 1000, ...scenario.call };
  // model/agent.py Actor: a missing kind is "human"; null = declares none
  if (isObj(call.actor) && !('kind' in call.actor)) call.actor = { ...call.actor, kind: 'human' };
  const loop = call.loop;
  const ctx = newValueContext();

  // the scripted model: records prompts; answers call.reply, and title requests with the transcript
  const model = scriptedModel(options => {
    if (isTitleRequest(options.prompt)) {
      const user = options.prompt.find(m => m.role === 'user');
      const part = Array.isArray(user?.content) ? user.content.find(c => c.type === 'text') : null;
      return part?.text ?? '';
    }
    return call.reply;
  });

  const storage = new InMemoryStore();
  const memory = new MockMemory({ storage, options: { generateTitle: agentSpec.memory?.generateTitle === true } });
  for (const t of scenario.threads ?? []) {
    const now = new Date(0);
    await memory.saveThread({ thread: { id: t.id, resourceId: t.resource, title: t.title ?? '', createdAt: now, updatedAt: now, metadata: {} } });
    if ((t.messages ?? []).length) {
      await memory.saveMessages({
        messages: t.messages.map(m => ({ threadId: t.id, resourceId: t.resource, ...messageToMastra(m, ctx) })),
      });
    }
  }

  const seen = { list: null };
  const processors = [rbacProcessor(agentSpec, call.actor, seen), ...agentSpec.processors.map(p => compileProcessor(p, ctx))];
  if (agentSpec.policies.length) processors.push(policyProcessor(agentSpec, seen));

  const bound = agentSpec.memory && call.memory ? call.memory : null;
  const agentConfig = {
    id: agentSpec.id,
    name: agentSpec.id,
    instructions: agentSpec.instructions,
    model,
    inputProcessors: processors,
  };
  if (agentSpec.memory) agentConfig.memory = memory;
  const tools = clientTools(agentSpec);

  const callOptions = {};
  if (bound) callOptions.memory = { thread: bound.thread, resource: bound.resource };
  if ((call.context ?? []).length) callOptions.context = call.context.map(m => messageToMastra(m, ctx));
  if (Object.keys(tools).length) callOptions.clientTools = tools;
  const messages = (call.messages ?? []).map(c => callerToMastra(c, ctx));

  let outcome;
  let result = null;
  const observation = {};
  if (loop === 'durable') {
    const agent = new Agent({ ...agentConfig, durable: true });
    const mastra = new Mastra({ agents: { [agentSpec.id]: agent }, storage, logger: silentLogger });
    const registered = mastra.getAgentById(agentSpec.id);
    let out;
    try {
      out = await registered.generate(messages, callOptions);
      outcome = out?.tripwire
        ? { kind: 'refused', reason: out.tripwire.reason ?? '', processorId: out.tripwire.processorId ?? '' }
        : { kind: 'answered' };
    } catch (err) {
      outcome = { kind: 'failed', error: errorText(err) };
    }
    // finalisation (saves, title) runs after generate() resolves: wait until storage and the
    // model have been idle for a while
    await settle(memory, call.memory?.thread, model);
  } else {
    const agent = new Agent(agentConfig);
    try {
      let full;
      if (loop === 'generate') full = await agent.generate(messages, callOptions);
      else full = await (await agent.stream(messages, callOptions)).getFullOutput();
      outcome = full.tripwire
        ? { kind: 'refused', reason: full.tripwire.reason ?? '', processorId: full.tripwire.processorId ?? '' }
        : { kind: 'answered' };
      result = {
        text: full.text ?? '',
        finishReason: full.finishReason ?? '',
        messages: (full.messages ?? []).map(m => m.id),
        rememberedMessages: (full.rememberedMessages ?? []).map(m => m.id),
      };
    } catch (err) {
      outcome = { kind: 'failed', error: errorText(err) };
    }
    if (bound && agentSpec.memory?.generateTitle) await settle(memory, bound.thread, model);
  }
  observation.outcome = outcome;
  observation.prompts = model.calls.filter(c => !isTitleRequest(c.prompt)).map(c => promptFromMastra(c.prompt));
  if (call.memory) {
    const { stored, title } = await storedView(memory, storage, call.memory.thread);
    observation.stored = stored;
    observation.title = title;
  } else {
    observation.stored = null;
    observation.title = null;
  }
  if (loop !== 'durable') {
    observation.result = outcome.kind === 'failed' ? null : result;
    observation.list = seen.list ? listView(seen.list) : null;
  } else {
    observation.result = null;
  }
  return { status: 'ok', observation: { guardspec: 1, ...observation }, fields: RAW_FIELDS[loop] };
}

/** Wait until the thread's stored state and the model's call count stop changing. */
async function settle(memory, threadId, model, { quietMs = 60, maxMs = 3000 } = {}) {
  const snap = async () => {
    const calls = model.calls.length;
    if (!threadId) return `${calls}`;
    const t = await memory.getThreadById({ threadId });
    const { messages } = t ? await memory.recall({ threadId, perPage: false }) : { messages: [] };
    return `${calls}|${t?.title ?? ''}|${messages.map(m => m.id + JSON.stringify(m.content?.parts ?? []).length).join(',')}`;
  };
  const start = Date.now();
  let last = await snap();
  let since = Date.now();
  while (Date.now() - start < maxMs) {
    await sleep(10);
    const now = await snap();
    if (now !== last) {
      last = now;
      since = Date.now();
    } else if (Date.now() - since >= quietMs) {
      return;
    }
  }
}

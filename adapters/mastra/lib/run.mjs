// The "run" request, mode "raw": one scenario (model/schemas/scenario.schema.json) on a real
// Mastra Agent with the scenario's processors compiled to JavaScript, the scripted model, and
// MockMemory over InMemoryStore. Answers an observation (model/schemas/observation.schema.json).
// Protocol: docs/protocol.md. What raw mode is: reference/raw_runner.py.
import { Agent } from '@mastra/core/agent';
import { EventEmitterPubSub } from '@mastra/core/events';
import { Mastra } from '@mastra/core/mastra';

import { newValueContext, callerToMastra, messageToMastra, promptFromMastra } from './convert.mjs';
import { compileProcessor } from './processors.mjs';
import {
  validateRun,
  agentSpecOf,
  callOf,
  modelFor,
  seededMemory,
  clientTools,
  listView,
  storedView,
  errorText,
  isTitleRequest,
} from './scenario.mjs';
import { runCompletion } from './completion.mjs';
import { onScenarioClock } from './clock.mjs';

const isObj = v => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The observation fields a raw run reports, by loop (docs/protocol.md). */
export const RAW_FIELDS = {
  generate: ['outcome', 'prompts', 'stored', 'title', 'result', 'list'],
  stream: ['outcome', 'prompts', 'stored', 'title', 'result', 'list'],
  durable: ['outcome', 'prompts', 'stored', 'title'],
};

// ---- RBAC and the policy engine as plain processors (reference/raw_runner.py) ---------------

const ROLES = ['admin', 'builder', 'operator', 'reviewer', 'viewer'];
const PRINCIPAL_KINDS = ['human', 'service', 'agent', 'system'];

/** reference/policies.py rbac_denial: Breakwater's closed roles and kinds; roles checked for humans only. */
export function rbacDenial(agent, actor) {
  const kind = actor?.kind === undefined ? 'human' : actor.kind;
  if (!actor || typeof actor.id !== 'string' || actor.id.trim() === '' || !PRINCIPAL_KINDS.includes(kind) || !ROLES.includes(actor.role)) {
    return "no actor in request context (key 'breakwater.actor')";
  }
  const kinds = agent.allowedPrincipalKinds ?? ['human'];
  if (!kinds.includes(kind)) return `principal kind '${kind}' is not in allowed kinds [${kinds.join(', ')}]`;
  const roles = agent.allowedRoles ?? ['operator'];
  if (kind === 'human' && !roles.includes(actor.role)) return `role '${actor.role}' is not in allowed roles [${roles.join(', ')}]`;
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

// ---- one run -----------------------------------------------------------------------------------

/** Quiet by default: Mastra logs a warning per swallowed durable processor error, etc. */
const silentLogger = false;

export async function runScenario(req) {
  const scenario = validateRun(req);
  if (req.mode === 'guarded') return { status: 'skipped', reason: 'mode "guarded": the guard is not part of this adapter (raw Mastra only)' };
  if ((scenario.threads ?? []).some(t => t.id === '')) {
    // Mastra's storage refuses to save it ("threadId must be a non-empty string"): the
    // scenario cannot be set up (docs/mastra-measurements.md §k k25)
    return { status: 'skipped', reason: 'a stored thread with an empty id cannot be seeded: Mastra storage refuses it' };
  }
  const call = callOf(scenario);
  return onScenarioClock(call.now, () => runOnClock(scenario, call));
}

async function runOnClock(scenario, call) {
  const agentSpec = agentSpecOf(scenario);
  const loop = call.loop;
  const ctx = newValueContext();
  const model = modelFor(call);
  const { storage, memory } = await seededMemory(scenario, ctx, agentSpec.memory?.generateTitle === true);
  const completion = runCompletion();
  completion.memory(memory);

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
    const registered = completion.durable(mastra.getAgentById(agentSpec.id));
    let out;
    try {
      out = await registered.generate(messages, callOptions);
      outcome = out?.tripwire
        ? { kind: 'refused', reason: out.tripwire.reason ?? '', processorId: out.tripwire.processorId ?? '' }
        : { kind: 'answered' };
    } catch (err) {
      outcome = { kind: 'failed', error: errorText(err) };
    }
  } else {
    // An Agent with neither a Mastra instance nor a pubsub of its own shares the module's default
    // one, and with it the thread runtime's state: a stream on a thread waits for any other
    // stream still running on the same (resource, thread) (waitForCrossAgentThreadRun), so two
    // overlapping runs of scenarios naming thread t1 would hold each other up, one failed
    // download for 6 s each. Each run gets its own, as it gets its own storage; a run alone
    // sees a fresh pubsub either way.
    const agent = new Agent({ ...agentConfig, pubsub: new EventEmitterPubSub() });
    callOptions.serverless = { waitUntil: completion.waitUntil };
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
  }
  // the durable finalisation (saves, title) and the standard loop's title end after the call
  await completion.done();
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


// The "run" request, mode "guarded", on a Breakwater build: the scenario mapped onto
// Breakwater's configuration (createGuardedAgent), run on the scenario's loop over real
// @mastra/core, observed through an audit sink, the policies' context and the shared readers.
// The processor compiler, conversion, scripted model and memory seeding are adapters/mastra's.
import { RequestContext } from '@mastra/core/request-context';
import { Mastra } from '@mastra/core/mastra';
import { createDurableAgent } from '@mastra/core/agent/durable';

import { newValueContext, callerToMastra, messageToMastra, promptFromMastra } from '../../mastra/lib/convert.mjs';
import { compileProcessor } from '../../mastra/lib/processors.mjs';
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
} from '../../mastra/lib/scenario.mjs';
import { runCompletion } from '../../mastra/lib/completion.mjs';
import { onScenarioClock } from '../../mastra/lib/clock.mjs';

const ACTOR_KEY = 'breakwater.actor';
const DENIED = /^GuardedAgent authorization denied: ([\s\S]*)$/;

/** The observation fields a guarded run can report, by loop; `list` and `read` only when seen. */
export const GUARDED_FIELDS = {
  generate: ['outcome', 'audit', 'prompts', 'stored', 'title', 'result', 'list', 'read'],
  stream: ['outcome', 'audit', 'prompts', 'stored', 'title', 'result', 'list', 'read'],
  durable: ['outcome', 'audit', 'prompts', 'stored', 'title', 'read'],
};

/** A scenario policy (model/agent.py) as a Breakwater PolicyEvaluator of the input phase that
 * records the text the policy engine hands it. */
function policyOf(spec, reads) {
  return {
    name: spec.name,
    phases: ['input'],
    channels: ['answer'],
    evaluate(context) {
      reads.push(context.text);
      switch (spec.kind) {
        case 'denyPatterns':
          return (spec.patterns ?? []).some(p => context.text.includes(p))
            ? { allowed: false, reason: 'matched a deny pattern' }
            : { allowed: true };
        case 'allow':
          return { allowed: true };
        case 'throws':
          throw new Error('evaluator failed');
        default:
          return undefined; // noDecision
      }
    },
  };
}

/** A compiled application processor that also remembers the list it was given. */
function observed(processor, seen) {
  if (typeof processor.processInput !== 'function') return processor;
  const inner = processor.processInput;
  processor.processInput = async args => {
    seen.list = args.messageList;
    return inner.call(processor, args);
  };
  return processor;
}

/** One Breakwater audit event as the observation holds it (its timestamp dropped). */
function eventOf(e) {
  const out = { action: e.action, decision: e.decision };
  if (e.reason !== undefined) out.reason = e.reason;
  out.actor = e.actor ?? null;
  out.resource = e.resource;
  if (e.detail !== undefined) out.detail = e.detail;
  return out;
}

function outcomeOfThrow(err) {
  const m = err instanceof Error && !err.id ? DENIED.exec(err.message ?? '') : null;
  if (m) return { kind: 'refused', reason: m[1], processorId: 'breakwater-rbac', thrown: err.message };
  return { kind: 'failed', error: errorText(err) };
}

function outcomeOfResult(out) {
  return out?.tripwire
    ? { kind: 'refused', reason: out.tripwire.reason ?? '', processorId: out.tripwire.processorId ?? '' }
    : { kind: 'answered' };
}

export async function runGuarded(req, bw) {
  const scenario = validateRun(req);
  if (req.mode !== 'guarded') return { status: 'skipped', reason: 'mode "raw": raw Mastra is adapters/mastra; this adapter runs Breakwater (guarded)' };
  const call = callOf(scenario);
  return onScenarioClock(call.now, () => runOnClock(scenario, call, bw));
}

async function runOnClock(scenario, call, bw) {
  const agentSpec = agentSpecOf(scenario);
  const loop = call.loop;
  const ctx = newValueContext();
  const model = modelFor(call);
  let seeded;
  try {
    seeded = await seededMemory(scenario, ctx, agentSpec.memory?.generateTitle === true);
  } catch (err) {
    // e.g. a stored message holding a throwing getter: no Mastra store can hold it
    return { status: 'skipped', reason: `the scenario's threads cannot be saved to Mastra's InMemoryStore (${err?.message ?? err})` };
  }
  const { storage, memory } = seeded;
  const completion = runCompletion();
  completion.memory(memory);

  const events = [];
  const reads = [];
  const seen = { list: null };
  // The model is the input side's contract: output-phase events (agent.output.*) are not kept.
  const audit = new bw.AuditLogger({ sink: e => void (String(e.action).startsWith('agent.output.') || events.push(eventOf(e))) });
  const requestContext = new RequestContext();
  if (call.actor != null) requestContext.set(ACTOR_KEY, { ...call.actor });

  const bound = agentSpec.memory && call.memory ? call.memory : null;
  const options = { requestContext };
  if (bound) options.memory = { thread: bound.thread, resource: bound.resource };
  if ((call.context ?? []).length) options.context = call.context.map(m => messageToMastra(m, ctx));
  const messages = (call.messages ?? []).map(c => callerToMastra(c, ctx));

  let outcome;
  let result = null;
  try {
    const config = {
      id: agentSpec.id,
      name: agentSpec.id,
      instructions: agentSpec.instructions,
      model,
      allowedRoles: agentSpec.allowedRoles,
      allowedPrincipalKinds: agentSpec.allowedPrincipalKinds,
      allowedInputAssetOrigins: agentSpec.allowedInputAssetOrigins ?? [],
      policies: agentSpec.policies.map(p => policyOf(p, reads)),
      audit,
      maxSteps: agentSpec.maxSteps ?? 1,
      toolChoice: 'auto',
      applicationInputProcessors: agentSpec.processors.map(p => observed(compileProcessor(p, ctx), seen)),
    };
    const tools = clientTools(agentSpec);
    if (Object.keys(tools).length) config.tools = tools;
    if (agentSpec.memory) config.memory = memory;
    const agent = bw.createGuardedAgent(config);
    if (loop === 'durable') {
      // Breakwater asks hosts that start a guarded durable loop to refuse caller system messages
      // and lists nested too deep themselves (its generate()/stream() do it; the durable agent
      // does not go through them).
      if (typeof bw.assertNoGuardedSystemMessages === 'function') bw.assertNoGuardedSystemMessages(messages);
      const durable = createDurableAgent({ agent });
      const mastra = new Mastra({ agents: { [agentSpec.id]: durable }, storage, logger: false });
      outcome = outcomeOfResult(await completion.durable(mastra.getAgentById(agentSpec.id)).generate(messages, options));
    } else {
      const full = loop === 'generate'
        ? await agent.generate(messages, options)
        : await (await agent.stream(messages, options)).getFullOutput();
      outcome = outcomeOfResult(full);
      result = {
        text: full.text ?? '',
        finishReason: full.finishReason ?? '',
        messages: (full.messages ?? []).map(m => m.id),
        rememberedMessages: (full.rememberedMessages ?? []).map(m => m.id),
      };
    }
  } catch (err) {
    outcome = outcomeOfThrow(err);
  }
  // the durable finalisation (saves, title) ends after generate() resolves
  await completion.done();

  const observation = { guardspec: 1, outcome, audit: events };
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
    if (seen.list) observation.list = listView(seen.list);
  }
  observation.read = reads.length ? reads[0] : null;
  // What this run could observe: the list only through an application processor, what the
  // policies read only through a scenario policy.
  const fields = GUARDED_FIELDS[loop].filter(f => (f !== 'list' || seen.list) && (f !== 'read' || agentSpec.policies.length));
  return { status: 'ok', observation, fields };
}

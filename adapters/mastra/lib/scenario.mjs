// What a raw run and a guarded run share (docs/protocol.md): the scenario's defaults, the scripted
// model, memory seeded with the scenario's threads, client tools, and reading the list, the
// stored thread and errors back. Shared by the Mastra adapter and adapters/breakwater.
import './network.mjs'; // the offline network, before anything can fetch
import { MockMemory } from '@mastra/core/memory';
import { InMemoryStore } from '@mastra/core/storage';
import { createTool } from '@mastra/core/tools';
import { z } from 'zod';

import { scriptedModel, isTitleRequest } from '../probes/scripted-model.mjs';
import { messageToMastra, messageFromMastra, systemFromMastra } from './convert.mjs';
import { ProtocolError } from './protocol-error.mjs';

export { isTitleRequest };

const isObj = v => typeof v === 'object' && v !== null && !Array.isArray(v);

export function validateRun(req) {
  if (req.mode !== 'raw' && req.mode !== 'guarded') throw new ProtocolError('$.mode', `expected "raw" or "guarded", got ${JSON.stringify(req.mode)}`);
  const s = req.scenario;
  if (!isObj(s)) throw new ProtocolError('$.scenario', 'expected a scenario object');
  if (!isObj(s.agent)) throw new ProtocolError('$.scenario.agent', 'expected an object');
  if (!isObj(s.call)) throw new ProtocolError('$.scenario.call', 'expected an object');
  return s;
}

/** The scenario's agent with model/agent.py's defaults. */
export function agentSpecOf(scenario) {
  return {
    id: 'agent',
    instructions: 'You are a guarded agent.',
    allowedRoles: ['operator'],
    allowedPrincipalKinds: ['human'],
    policies: [],
    processors: [],
    clientTools: [],
    memory: null,
    ...scenario.agent,
  };
}

/** The scenario's call with model/scenario.py's defaults; a missing actor kind is "human". */
export function callOf(scenario) {
  const call = { loop: 'generate', messages: [], actor: null, memory: null, reply: 'ok', context: [], now: 1000, ...scenario.call };
  // model/agent.py Actor: a missing kind is "human"; null = declares none
  if (isObj(call.actor) && !('kind' in call.actor)) call.actor = { ...call.actor, kind: 'human' };
  return call;
}

/** The scripted model: records prompts; answers call.reply, and title requests with the transcript. */
export function modelFor(call) {
  return scriptedModel(options => {
    if (isTitleRequest(options.prompt)) {
      const user = options.prompt.find(m => m.role === 'user');
      const part = Array.isArray(user?.content) ? user.content.find(c => c.type === 'text') : null;
      return part?.text ?? '';
    }
    return call.reply;
  });
}

/** Fresh storage and MockMemory, seeded with the scenario's threads and their messages. */
export async function seededMemory(scenario, ctx, generateTitle) {
  const storage = new InMemoryStore();
  const memory = new MockMemory({ storage, options: { generateTitle } });
  for (const t of scenario.threads ?? []) {
    const now = new Date(0);
    await memory.saveThread({ thread: { id: t.id, resourceId: t.resource, title: t.title ?? '', createdAt: now, updatedAt: now, metadata: {} } });
    if ((t.messages ?? []).length) {
      await memory.saveMessages({
        messages: t.messages.map(m => ({ threadId: t.id, resourceId: t.resource, ...messageToMastra(m, ctx) })),
      });
    }
  }
  return { storage, memory };
}

// ---- client tools (model/agent.py Mapping, reference/mapping.py) -----------------------------

export function clientTools(agent) {
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

export async function storedView(memory, storage, threadId) {
  const thread = await memory.getThreadById({ threadId });
  if (!thread) return { stored: [], title: '' };
  const { messages } = await memory.recall({ threadId, perPage: false });
  const rows = [...messages].sort((a, b) => new Date(a.createdAt) - new Date(b.createdAt));
  return { stored: rows.map(messageFromMastra), title: thread.title ?? '' };
}

export function errorText(err) {
  // the outermost MastraError id (AGENT_GENERATE_FAILED, ...), else the error's name: message
  if (err?.id) return String(err.id);
  return `${err?.name ?? 'Error'}: ${String(err?.message ?? err).split('\n')[0]}`;
}

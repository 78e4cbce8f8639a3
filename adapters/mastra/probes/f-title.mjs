// (f) Title generation: the prompt the title model gets, what Mastra does to the returned text,
// which call awaits it and how to detect completion. Standard Agent, then a durable Agent on Mastra.
import { Agent } from '@mastra/core/agent';
import { MockMemory } from '@mastra/core/memory';
import { InMemoryStore } from '@mastra/core/storage';
import { Mastra } from '@mastra/core/mastra';
import { scriptedModel, isTitleRequest } from './scripted-model.mjs';

const RAW_TITLE = '  <think>hidden</think> "Quoted: Title" ' + 'x'.repeat(100) + '  \n';
const show = (label, v) => console.log(`${label}: ${typeof v === 'string' ? v : JSON.stringify(v)}`);
const origLog = console.log;
const quiet = () => { console.info = console.warn = console.debug = () => {}; };
quiet();

function makeModel() {
  return scriptedModel(options => (isTitleRequest(options.prompt) ? RAW_TITLE : 'normal answer'));
}

async function standard(method) {
  const model = makeModel();
  const storage = new InMemoryStore();
  const memory = new MockMemory({ storage, options: { generateTitle: true } });
  const agent = new Agent({ id: 'g', name: 'g', instructions: 'You are a guard test.', model, memory });
  let titleCb = null;
  const t0 = Date.now();
  const opts = { memory: { thread: 't1', resource: 'r1', onTitleGenerated: t => { titleCb = { title: t, ms: Date.now() - t0 }; } } };
  if (method === 'generate') await agent.generate('where am I?', opts);
  else { const out = await agent.stream('where am I?', opts); await out.getFullOutput(); }
  const afterCall = (await memory.getThreadById({ threadId: 't1' }))?.title;
  await new Promise(r => setTimeout(r, 300));
  const later = (await memory.getThreadById({ threadId: 't1' }))?.title;
  const titleCall = model.calls.find(c => isTitleRequest(c.prompt));
  show(`standard ${method}: model calls`, model.calls.map(c => `${c.method}${isTitleRequest(c.prompt) ? '(title)' : ''}`));
  show(`standard ${method}: title prompt`, titleCall?.prompt ?? null);
  show(`standard ${method}: title right after the call resolved`, afterCall ?? null);
  show(`standard ${method}: title 300 ms later`, later ?? null);
  show(`standard ${method}: onTitleGenerated`, titleCb);
}

async function durable(method) {
  const model = makeModel();
  const storage = new InMemoryStore();
  const memory = new MockMemory({ storage, options: { generateTitle: true } });
  const agent = new Agent({ id: 'g', name: 'g', instructions: 'You are a guard test.', model, memory, durable: true });
  const mastra = new Mastra({ agents: { g: agent }, storage, logger: false });
  const registered = mastra.getAgentById('g');
  const t0 = Date.now();
  if (method === 'generate') await registered.generate('where am I?', { memory: { thread: 't1', resource: 'r1' } });
  else { const r = await registered.stream('where am I?', { memory: { thread: 't1', resource: 'r1' } }); await r.output.getFullOutput?.(); }
  const afterCall = (await memory.getThreadById({ threadId: 't1' }))?.title;
  let polled = null;
  for (let i = 0; i < 100; i++) {
    const t = (await memory.getThreadById({ threadId: 't1' }))?.title;
    if (t) { polled = { title: t, ms: Date.now() - t0 }; break; }
    await new Promise(r => setTimeout(r, 20));
  }
  const titleCall = model.calls.find(c => isTitleRequest(c.prompt));
  show(`durable ${method}: agent class`, registered.constructor.name);
  show(`durable ${method}: model calls`, model.calls.map(c => `${c.method}${isTitleRequest(c.prompt) ? '(title)' : ''}`));
  show(`durable ${method}: title user prompt`, titleCall?.prompt.filter(m => m.role !== 'system') ?? null);
  show(`durable ${method}: title right after the call resolved`, afterCall ?? null);
  show(`durable ${method}: title by polling storage`, polled);
}

show('raw title text returned by the model', RAW_TITLE);
await standard('generate');
await standard('stream');
await durable('generate');
await durable('stream');
process.exit(0);

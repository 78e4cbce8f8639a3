// (k) A call bound to an empty thread id or an empty resource id (issue 10 point 5): what
// generate/stream/durable do, and what is stored (docs/mastra-measurements.md §k).
import { Agent } from '@mastra/core/agent';
import { Mastra } from '@mastra/core/mastra';
import { MockMemory } from '@mastra/core/memory';
import { InMemoryStore } from '@mastra/core/storage';
import { scriptedModel } from './scripted-model.mjs';

const silent = { debug() {}, info() {}, warn() {}, error() {}, trackException() {}, getTransports() { return new Map(); }, child() { return this; } };
for (const [thread, resource] of [['', 'r1'], ['t1', ''], ['', '']]) {
  for (const loop of ['generate', 'stream', 'durable']) {
    const storage = new InMemoryStore();
    const memory = new MockMemory({ storage });
    const model = scriptedModel(() => 'ok');
    const config = { id: 'a', name: 'a', instructions: 'sys', model, memory };
    let outcome;
    try {
      if (loop === 'durable') {
        const mastra = new Mastra({ agents: { a: new Agent({ ...config, durable: true }) }, storage, logger: false });
        await mastra.getAgentById('a').generate('hi', { memory: { thread, resource } });
      } else if (loop === 'generate') await new Agent(config).generate('hi', { memory: { thread, resource } });
      else await (await new Agent(config).stream('hi', { memory: { thread, resource } })).getFullOutput();
      outcome = 'answered';
    } catch (err) {
      outcome = `failed ${err.id ?? err.name}: ${err.message.split('\n')[0]}${err.cause ? ` (cause: ${err.cause.message?.split('\n')[0]})` : ''}`;
    }
    await new Promise(r => setTimeout(r, 300));
    const threads = await storage.stores?.memory?.listThreads?.({}).catch(() => null);
    let stored = [];
    for (const id of [thread, 't1']) {
      try { stored.push(`${JSON.stringify(id)}: ${(await memory.recall({ threadId: id || 'x' })).messages.length}`); } catch (e) { stored.push(`${JSON.stringify(id)}: ${e.message.split('\n')[0]}`); }
    }
    console.log(`thread ${JSON.stringify(thread)} resource ${JSON.stringify(resource)} ${loop}: ${outcome}; model calls ${model.calls.length}; stored ${stored.join(', ')}`);
  }
}

// lib/completion.mjs: a run ends when the work Mastra hands out has ended, and no later than the
// hard limit. Run with `node --test adapters/mastra/test/`.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { runCompletion } from '../lib/completion.mjs';

const later = (ms, v) => new Promise(resolve => setTimeout(() => resolve(v), ms));

test('done waits for a memory write in flight and returns its value to the caller', async () => {
  const completion = runCompletion();
  const writes = [];
  const memory = completion.memory({
    async saveMessages({ messages }) {
      await later(30);
      writes.push(...messages);
      return { messages };
    },
  });
  const p = memory.saveMessages({ messages: ['m1'] });
  await completion.done();
  assert.deepEqual(writes, ['m1']);
  assert.deepEqual(await p, { messages: ['m1'] });
});

test('work started by tracked work is waited for too', async () => {
  const completion = runCompletion();
  const seen = [];
  completion.waitUntil(
    later(10).then(() => {
      completion.waitUntil(later(20).then(() => seen.push('title saved')));
    }),
  );
  await completion.done();
  assert.deepEqual(seen, ['title saved']);
});

test('a durable workflow run is tracked, and a failed one still ends the wait', async () => {
  const completion = runCompletion();
  let finished = false;
  const agent = completion.durable({
    async executeWorkflow() {
      await later(20);
      finished = true;
      throw new Error('workflow failed');
    },
  });
  agent.executeWorkflow().catch(() => {});
  await completion.done();
  assert.ok(finished);
});

test('work that never ends fails the run at the hard limit', async () => {
  const completion = runCompletion();
  completion.waitUntil(new Promise(() => {}));
  const start = performance.now();
  await assert.rejects(completion.done({ limitMs: 50 }), /had not ended after 50 ms \(1 pending\)/);
  assert.ok(performance.now() - start < 1000);
});

// lib/run.mjs: overlapping raw runs are independent of each other, as the server runs them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runScenario } from '../lib/run.mjs';

/** A stream run on thread t1 of resource r1; `file` adds a user file part (an http URL fails
 * to download offline, which holds its run for the download's retries). */
function streamOnThread(id, file) {
  const parts = [{ type: 'text', text: 'hi' }];
  if (file) parts.push({ type: 'file', mimeType: 'image/png', data: 'https://assets.example/a.png' });
  return {
    id,
    kind: 'run',
    mode: 'raw',
    scenario: {
      guardspec: 1,
      agent: { id: 'agent', instructions: 'You are an agent.', processors: [], memory: { generateTitle: false } },
      threads: [{ id: 't1', resource: 'r1', messages: [] }],
      call: {
        loop: 'stream',
        messages: [{ id: `${id}-u`, role: 'user', createdAt: 10, parts }],
        actor: { id: 'alice', role: 'operator', kind: 'human' },
        memory: { thread: 't1', resource: 'r1' },
        reply: 'ok',
        now: 1000,
      },
    },
  };
}

test('a stream run does not wait for another run on the same thread id', async () => {
  const settled = [];
  const run = req => runScenario(req).then(reply => (settled.push(req.id), reply));
  const slow = run(streamOnThread('slow', true));
  const quick = run(streamOnThread('quick', false));
  const [s, q] = await Promise.all([slow, quick]);
  assert.equal(q.status, 'ok');
  assert.equal(q.observation.outcome.kind, 'answered');
  assert.equal(s.observation.outcome.kind, 'failed'); // the download failed: the run was slow
  assert.deepEqual(settled, ['quick', 'slow']);
});

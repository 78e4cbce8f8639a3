// lib/serve.mjs: overlapping runs, replies in request order, busy spans that never overlap.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SERVE = fileURLToPath(new URL('../lib/serve.mjs', import.meta.url));

// A server whose `run` waits `ms` and whose other kinds answer at once; each reply says when its
// handling started and ended, on the server's clock.
const SERVER = `
const { serveLines } = await import(${JSON.stringify(SERVE)});
const t0 = performance.now();
const at = () => Math.round(performance.now() - t0);
serveLines(async line => {
  const req = JSON.parse(line);
  const started = at();
  if (req.kind === 'run') await new Promise(r => setTimeout(r, req.ms));
  return { reply: { id: req.id, status: 'ok', started, ended: at() }, stop: req.kind === 'stop' };
}, reply => process.stdout.write(JSON.stringify(reply) + '\\n'), { overlap: ['run'], limit: 2 });
`;

function exchange(requests) {
  const child = spawn(process.execPath, ['--input-type=module', '-e', SERVER], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', d => (out += d));
  const t = performance.now();
  child.stdin.write(requests.map(r => JSON.stringify(r) + '\n').join(''));
  child.stdin.end();
  return new Promise(resolve =>
    child.on('exit', () => resolve({ wall: performance.now() - t, replies: out.trim().split('\n').map(l => JSON.parse(l)) })),
  );
}

test('runs overlap up to the limit, other kinds wait their turn, replies keep request order', async () => {
  const { replies } = await exchange([
    { id: 1, kind: 'run', ms: 300 },
    { id: 2, kind: 'run', ms: 10 },
    { id: 3, kind: 'run', ms: 10 },
    { id: 4, kind: 'hello' },
    { id: 5, kind: 'run', ms: 10 },
  ]);
  assert.deepEqual(replies.map(r => r.id), [1, 2, 3, 4, 5]);
  const [slow, fast, third, hello, after] = replies;
  assert.ok(fast.ended < slow.ended, 'the second run ran beside the slow first one');
  assert.ok(third.started >= fast.ended, 'the third waited for a slot (limit 2)');
  assert.ok(third.started < slow.ended, 'and got the slot the fast one freed');
  assert.ok(hello.started >= slow.ended, 'a non-run request waits until every earlier one is answered');
  assert.ok(after.started >= hello.ended, 'and a later run waits for it');
});

test('busy spans never overlap: their sum lies within the wall time', async () => {
  const requests = Array.from({ length: 8 }, (_, i) => ({ id: i, kind: 'run', ms: 100 }));
  const { wall, replies } = await exchange([...requests, { id: 'stop', kind: 'stop' }]);
  const busy = replies.filter(r => r.id !== 'stop').reduce((s, r) => s + r.busyMs, 0);
  assert.equal(replies.length, 9);
  assert.ok(busy >= 350, `four rounds of two 100 ms runs: busy ${busy} ms`);
  assert.ok(busy <= wall, `busy ${busy} ms within wall ${wall} ms`);
});

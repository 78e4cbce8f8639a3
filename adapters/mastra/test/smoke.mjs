// Smoke test of server.mjs: run with `node --test adapters/mastra/test/`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const SERVER = fileURLToPath(new URL('../server.mjs', import.meta.url));

let child;
let lines;
const pending = [];
const queued = [];

before(() => {
  child = spawn(process.execPath, [SERVER], { stdio: ['pipe', 'pipe', 'pipe'] });
  child.stderr.resume();
  lines = createInterface({ input: child.stdout });
  lines.on('line', line => {
    const waiter = pending.shift();
    if (waiter) waiter(line);
    else queued.push(line);
  });
});

after(() => {
  if (child.exitCode === null) child.kill();
});

/** Send one raw line, resolve with the parsed reply line. */
function sendRaw(line) {
  child.stdin.write(line + '\n');
  return new Promise(resolve => {
    const take = l => resolve(JSON.parse(l));
    if (queued.length) take(queued.shift());
    else pending.push(take);
  });
}
const send = req => sendRaw(JSON.stringify(req));

const db = (id, role, createdAt, parts) => ({ id, role, createdAt, content: { format: 2, parts } });
const text = t => ({ type: 'text', text: t });

test('hello names the implementation', async () => {
  const { busyMs, ...reply } = await send({ id: 'h', kind: 'hello' });
  assert.equal(typeof busyMs, 'number');
  assert.deepEqual(reply, {
    id: 'h', status: 'ok', implementation: 'mastra', version: '1.71.0', protocol: 1,
    kinds: ['hello', 'run', 'ops', 'bench-ops', 'stop'], modes: ['raw'], compare: { normalise: 'mastra' },
  });
});

test('clear.input.db() removes memory+input messages too (mastra-facts §6)', async () => {
  const a1Stored = db('a1', 'assistant', 2000, [
    text('let me check'),
    { type: 'tool-invocation', toolInvocation: { state: 'call', toolCallId: 'tc1', toolName: 'getLocation', args: {} } },
  ]);
  const a1Client = db('a1', 'assistant', 2000, [
    { type: 'tool-invocation', toolInvocation: { state: 'result', toolCallId: 'tc1', toolName: 'getLocation', args: {}, result: { city: 'Paris' } } },
  ]);
  const reply = await send({
    id: 'clear',
    kind: 'ops',
    thread: { threadId: 't1', resourceId: 'r1' },
    ops: [
      { op: 'add', source: 'input', messages: a1Client },
      { op: 'add', source: 'memory', messages: [db('u1', 'user', 1000, [text('where am I?')]), a1Stored] },
      { op: 'add', source: 'input', messages: db('n1', 'user', 3000, [text('tell me about Paris')]) },
      { op: 'checker' },
      { op: 'getSource', id: 'a1' },
      { op: 'clearInput' },
      { op: 'view', name: 'all' },
      { op: 'view', name: 'remembered' },
    ],
  });
  assert.equal(reply.id, 'clear');
  assert.equal(reply.status, 'ok');
  const values = reply.results.map(r => r.value);
  assert.ok(reply.results.every(r => r.ok), JSON.stringify(reply.results));
  assert.deepEqual(values[3], { memory: ['u1', 'a1'], input: ['a1', 'n1'], response: [], context: [] });
  assert.equal(values[4], 'memory');
  assert.deepEqual(values[5], ['a1', 'n1']);
  assert.deepEqual(values[6], ['u1']);
  assert.deepEqual(values[7], ['u1']);
  assert.deepEqual(reply.state.messages.map(m => m.id), ['u1']);
  assert.deepEqual(reply.state.sources, { memory: ['u1'], input: [], response: [], context: [] });
});

test('a throwing op is reported and the sequence goes on', async () => {
  const reply = await send({
    id: 3,
    kind: 'ops',
    thread: { threadId: 't1', resourceId: 'r1' },
    ops: [
      { op: 'add', source: 'input', messages: { id: 'x', role: 'user' } },
      { op: 'add', source: 'input', messages: { ...db('y', 'user', 5, [text('hi')]), threadId: 'other' } },
      { op: 'add', source: 'input', messages: db('z', 'user', 6, [text('ok')]) },
      { op: 'view', name: 'input' },
    ],
  });
  assert.equal(reply.status, 'ok');
  assert.deepEqual(reply.results[0].ok, false);
  assert.equal(reply.results[0].error, 'INVALID_MESSAGE_CONTENT');
  assert.equal(reply.results[1].ok, false);
  assert.deepEqual(reply.results[3], { ok: true, value: ['z'] });
  assert.deepEqual(reply.state.messages[0].parts, [{ type: 'text', text: 'ok', stamped: true }]);
});

test('malformed lines are answered, not fatal', async () => {
  const bad = await sendRaw('{not json');
  assert.equal(bad.status, 'errored');
  assert.equal(bad.id, null);
  const wrongType = await send({ id: 'w', kind: 'ops', ops: [{ op: 'removeByIds', ids: 'u1' }] });
  assert.deepEqual(wrongType.status, 'errored');
  assert.equal(wrongType.id, 'w');
  assert.match(wrongType.detail, /^\$\.ops\[0\]\.ids: expected an array/);
  const unknown = await send({ id: 'u', kind: 'no-such-kind' });
  assert.equal(unknown.status, 'skipped');
  const still = await send({ id: 'after', kind: 'hello' });
  assert.equal(still.status, 'ok');
});

test('a run reply carries the time the adapter spent on it', async () => {
  const reply = await send({
    id: 'r', kind: 'run', mode: 'raw',
    scenario: { agent: {}, call: { loop: 'generate', actor: { id: 'u', role: 'operator' }, messages: ['hi'] } },
  });
  assert.equal(reply.status, 'ok');
  assert.ok(Number.isFinite(reply.busyMs) && reply.busyMs > 0);
});

test('stop ends the process cleanly', async () => {
  const exited = new Promise(resolve => child.on('exit', code => resolve(code)));
  const reply = await send({ id: 's', kind: 'stop' });
  assert.deepEqual(reply, { id: 's', status: 'ok' });
  assert.equal(await exited, 0);
});

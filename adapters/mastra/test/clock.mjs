// lib/clock.mjs: each run on its own clock, overlapping runs included.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { onScenarioClock } from '../lib/clock.mjs';

test('overlapping runs each read their own clock to their last continuation', async () => {
  const seen = [];
  const run = (now, wait) =>
    onScenarioClock(now, async () => {
      seen.push([now, Date.now()]);
      await sleep(wait);
      seen.push([now, new Date().getTime()]);
    });
  await Promise.all([run(1000, 30), run(5000, 5)]);
  assert.deepEqual(seen.filter(([now, t]) => now !== t), []);
  assert.equal(seen.length, 4);
});

test('outside a run, and without a finite now, the wall clock', async () => {
  const before = Date.now();
  await onScenarioClock(1000, async () => {});
  assert.ok(Date.now() >= before);
  await onScenarioClock(undefined, async () => assert.ok(Date.now() >= before));
  assert.ok(new Date(7).getTime() === 7 && new Date() instanceof Date);
});

// The scenario's clock (SPEC M2: the model stamps with the call's `now`), shared by both adapters.
//
// `Date.now()` and `new Date()` read the clock of the run whose asynchronous context asks, so
// that two adds of one run fall on the same stamp as they do in the model whatever the wall
// clock did between them. The clock rides on an AsyncLocalStorage, not on a global value:
// the raw adapter answers several runs at once (lib/serve.mjs), and each must keep its own
// `now` to its last continuation. Outside a run, and for a run without a finite `now`, the
// wall clock. The wait for a run's end (runCompletion) is a timer, not a clock reading.
import { AsyncLocalStorage } from 'node:async_hooks';

const RealDate = globalThis.Date;
const clock = new AsyncLocalStorage();

function ScenarioDate(...args) {
  if (!new.target) return RealDate();
  const now = clock.getStore();
  return args.length === 0 && now !== undefined ? new RealDate(now) : new RealDate(...args);
}
ScenarioDate.now = () => clock.getStore() ?? RealDate.now();
ScenarioDate.parse = RealDate.parse;
ScenarioDate.UTC = RealDate.UTC;
ScenarioDate.prototype = RealDate.prototype;

/** Runs fn on the clock `now` (every Date read within its asynchronous context). */
export function onScenarioClock(now, fn) {
  if (!Number.isFinite(now)) return fn();
  globalThis.Date = ScenarioDate;
  return clock.run(now, fn);
}

// Knowing when a run's work is done, from what @mastra/core 1.71.0 hands out, rather than from a
// quiet spell. A run is over when every promise below has settled:
// - the durable loop's workflow run (DurableAgent#executeWorkflow): its finish step flushes the
//   messages, emits the finish event that generate() resolves on, and only then awaits the
//   thread title (runDurableFinishSideEffects' `titleGeneration`); the run resolves after it;
// - the standard loop's detached title: Agent#executeOnFinish neither awaits genTitle nor its
//   save, but hands that promise to the call option `serverless.waitUntil`, before generate()
//   or the stream's full output resolves (all other saves of that loop are awaited by then);
// - every memory write still in flight (saveMessages, updateThread, ...), so that a write
//   started by either of them is over before the stored thread is read.

const MEMORY_WRITES = [
  'saveThread',
  'createThread',
  'updateThread',
  'deleteThread',
  'saveMessages',
  'updateMessages',
  'deleteMessages',
  'updateWorkingMemory',
];

/** A hung run still ends: the bound on waiting for work Mastra has said it is doing, under the
 * client's default per-case timeout (10 s) so that the run is answered rather than timed out. */
const HARD_LIMIT_MS = 5000;
const LIMIT = Symbol('limit');

export function runCompletion() {
  const pending = new Set();
  const track = value => {
    const p = Promise.resolve(value).then(
      () => {},
      () => {}, // a failed write or title is Mastra's to report; only its end matters here
    );
    pending.add(p);
    p.then(() => pending.delete(p));
    return value;
  };
  return {
    /** For the call option `serverless: { waitUntil }`: Mastra's detached finish-time work. */
    waitUntil: track,

    /** Tracks every write of `memory` while it is in flight. */
    memory(memory) {
      for (const name of MEMORY_WRITES) {
        const inner = memory[name];
        if (typeof inner !== 'function') continue;
        memory[name] = function (...args) {
          return track(inner.apply(this, args));
        };
      }
      return memory;
    },

    /** Tracks the durable agent's workflow runs (the instance's own method shadows its class's). */
    durable(agent) {
      const inner = agent.executeWorkflow;
      if (typeof inner !== 'function') throw new Error('@mastra/core: a DurableAgent without executeWorkflow');
      agent.executeWorkflow = function (...args) {
        return track(inner.apply(this, args));
      };
      return agent;
    },

    /** Resolves once nothing tracked is pending (work may start more work: loop until none is
     * left). Past the hard limit it throws: the observation would miss what is still running,
     * and the run is answered as an adapter failure rather than with a partial observation. */
    async done({ limitMs = HARD_LIMIT_MS } = {}) {
      let timer;
      const limit = new Promise(resolve => {
        timer = setTimeout(() => resolve(LIMIT), limitMs);
      });
      try {
        while (pending.size) {
          if ((await Promise.race([Promise.all([...pending]), limit])) === LIMIT) {
            throw new Error(`Mastra's work for this run had not ended after ${limitMs} ms (${pending.size} pending)`);
          }
        }
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

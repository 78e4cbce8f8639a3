// The JSON-lines loop of protocol v1 (docs/protocol.md): one request per line, one reply per
// line, replies written in the order the requests came. `handle(line)` never throws and returns
// {reply, stop}.
//
// Requests of the kinds in `overlap` (a run: it spends most of its time waiting on timers and
// promises inside Mastra) are handled concurrently, up to `limit` at a time; any other request
// waits until every earlier one has been answered, so that `stop`, `crash` and `hang` act at
// their place in the stream. A reply is held until every earlier reply is written.
//
// Every reply but stop's carries `busyMs`: the wall time from the later of (its line read, the
// previous reply written) to its own reply written. Summed over a process's replies it is the
// time the process had a request in hand, with no span counted twice.
import { createInterface } from 'node:readline';

/** How many overlapping requests run at once: GUARDSPEC_ADAPTER_CONCURRENCY, default 64: a failed
 * download holds its run for 6 s (docs/evidence/mastra.md M12.10), and a few such runs must not
 * take every slot. */
export function concurrencyLimit(env = process.env) {
  const n = Number.parseInt(env.GUARDSPEC_ADAPTER_CONCURRENCY ?? '', 10);
  return Number.isInteger(n) && n >= 1 ? n : 64;
}

function kindOf(line) {
  try {
    const req = JSON.parse(line);
    return typeof req?.kind === 'string' ? req.kind : null;
  } catch {
    return null;
  }
}

export function serveLines(handle, writeLine, { overlap = [], limit = concurrencyLimit() } = {}) {
  const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
  const overlapping = new Set(overlap);
  let lastWritten = performance.now();
  let written = Promise.resolve(); // every reply so far is written
  let barrier = Promise.resolve(); // every request so far has been answered or started
  let running = 0;
  const waiting = [];
  let stopping = false;

  const slot = () =>
    running < limit
      ? (running++, Promise.resolve())
      : new Promise(resolve => waiting.push(resolve)).then(() => void running++);
  const release = () => {
    running--;
    waiting.shift()?.();
  };

  const write = (reply, stop, readAt) => {
    if (!stop) {
      const now = performance.now();
      reply.busyMs = Math.round((now - Math.max(readAt, lastWritten)) * 10) / 10;
      lastWritten = now;
    }
    try {
      writeLine(reply);
    } catch (err) {
      writeLine({ id: reply.id ?? null, status: 'errored', detail: `$: reply not serialisable: ${err.message}` });
    }
    if (stop) {
      stopping = true;
      rl.close();
      process.exit(0);
    }
  };

  rl.on('line', line => {
    if (line.trim() === '' || stopping) return;
    const readAt = performance.now();
    const before = written;
    let answered;
    if (overlapping.has(kindOf(line))) {
      const started = barrier.then(slot);
      answered = started.then(() => handle(line)).finally(release);
      barrier = started;
    } else {
      answered = Promise.all([barrier, before]).then(() => handle(line));
      barrier = answered;
    }
    written = Promise.all([answered, before]).then(([{ reply, stop }]) => {
      if (!stopping) write(reply, stop, readAt);
    });
  });
  rl.on('close', () => {
    written.then(() => process.exit(process.exitCode ?? 0));
  });
  // A rejected promise or a stray exception inside Mastra must not kill the server.
  process.on('unhandledRejection', err => process.stderr.write(`unhandled rejection: ${err?.stack ?? err}\n`));
  process.on('uncaughtException', err => process.stderr.write(`uncaught exception: ${err?.stack ?? err}\n`));
}

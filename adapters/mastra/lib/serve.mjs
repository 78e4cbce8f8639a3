// The JSON-lines loop of protocol v1 (docs/protocol.md): one request per line, answered in order;
// a run is asynchronous, so requests are chained. `handle(line)` never throws and returns
// {reply, stop}. Every reply but stop's carries `busyMs`: the wall time from taking its line up
// (once the previous reply is written, so time spent queued behind it is not counted) to writing
// its reply.
import { createInterface } from 'node:readline';

export function serveLines(handle, writeLine) {
  const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
  let chain = Promise.resolve();
  let stopping = false;
  rl.on('line', line => {
    if (line.trim() === '' || stopping) return;
    chain = chain.then(async () => {
      if (stopping) return;
      const start = performance.now();
      const { reply, stop } = await handle(line);
      if (!stop) reply.busyMs = Math.round((performance.now() - start) * 10) / 10;
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
    });
  });
  rl.on('close', () => {
    chain.then(() => process.exit(process.exitCode ?? 0));
  });
  // A rejected promise or a stray exception inside Mastra must not kill the server.
  process.on('unhandledRejection', err => process.stderr.write(`unhandled rejection: ${err?.stack ?? err}\n`));
  process.on('uncaughtException', err => process.stderr.write(`uncaught exception: ${err?.stack ?? err}\n`));
}

// guardspec <-> real Mastra: one long-lived process speaking JSON lines on stdin/stdout.
// One request object per line, one reply per line, the request's id echoed.
// Protocol: docs/protocol-mastra-ops.md. Logs go to stderr (lib/stdio.mjs is imported first).
import { writeLine } from './lib/stdio.mjs';

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const { ProtocolError, describe, isPlainObject } = await import('./lib/protocol-error.mjs');
const { validateOpsRequest, runOps, reportState } = await import('./lib/ops.mjs');
const { runScenario } = await import('./lib/run.mjs');
const { serveLines } = await import('./lib/serve.mjs');

const require = createRequire(import.meta.url);
const MASTRA_VERSION = JSON.parse(readFileSync(require.resolve('@mastra/core/package.json'), 'utf8')).version;
const PROTOCOL = 1;

function idOf(req) {
  if (!isPlainObject(req) || !('id' in req)) return null;
  return typeof req.id === 'string' || typeof req.id === 'number' ? req.id : null;
}

function handleOps(req, id) {
  const decoded = validateOpsRequest(req);
  const { results, list } = runOps(decoded);
  return { id, status: 'ok', results, state: reportState(list) };
}

function handleBench(req, id) {
  if (!Number.isInteger(req.count) || req.count < 1) {
    throw new ProtocolError('$.count', `expected a positive integer, got ${describe(req.count)}`);
  }
  const decoded = validateOpsRequest(req);
  const withState = req.state === true;
  const start = process.hrtime.bigint();
  for (let i = 0; i < req.count; i++) {
    const { list } = runOps(decoded, { withResults: withState });
    if (withState) reportState(list);
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  return { id, status: 'ok', count: req.count, seconds, perSecond: req.count / seconds };
}

/** Answer one line; never throws. Returns {reply, stop}. */
async function handle(line) {
  let req;
  try {
    req = JSON.parse(line);
  } catch (err) {
    return { reply: { id: null, status: 'errored', detail: `$: expected one JSON object per line (${err.message})` } };
  }
  const id = idOf(req);
  try {
    if (!isPlainObject(req)) throw new ProtocolError('$', `expected an object, got ${describe(req)}`);
    if ('id' in req && id === null && req.id !== null) {
      throw new ProtocolError('$.id', `expected a string, number or null, got ${describe(req.id)}`);
    }
    if (typeof req.kind !== 'string') throw new ProtocolError('$.kind', `expected a request kind, got ${describe(req.kind)}`);
    switch (req.kind) {
      case 'hello':
        return { reply: { id, status: 'ok', implementation: 'mastra', version: MASTRA_VERSION, protocol: PROTOCOL, kinds: ['hello', 'run', 'ops', 'bench-ops', 'stop'], modes: ['raw'], compare: { normalise: 'mastra' } } };
      case 'stop':
        return { reply: { id, status: 'ok' }, stop: true };
      case 'ops':
        return { reply: handleOps(req, id) };
      case 'bench-ops':
        return { reply: handleBench(req, id) };
      case 'run':
        return { reply: { id, ...(await runScenario(req)) } };
      case 'crash':
        // test hook (docs/protocol.md): exit at once, as an adapter bug would
        process.exit(70);
        break;
      case 'hang':
        // test hook: never answer
        await new Promise(() => {});
        break;
      default:
        return { reply: { id, status: 'skipped', reason: `request kind ${JSON.stringify(req.kind)} is not implemented by this adapter` } };
    }
  } catch (err) {
    if (err instanceof ProtocolError) return { reply: { id, status: 'errored', detail: err.message } };
    return { reply: { id, status: 'errored', detail: `$: adapter failure: ${err?.name ?? 'Error'}: ${err?.message ?? err}` } };
  }
}

serveLines(handle, writeLine, { overlap: ['run'] });

// guardspec <-> Breakwater: protocol v1 (docs/protocol.md) over a Breakwater build the user names,
//   BREAKWATER_MODULE=/path/to/breakwater.mjs node adapters/breakwater/server.mjs
// It answers `run` in mode "guarded" (lib/guarded.mjs). The build imports @mastra/core and zod
// as externals; they resolve from adapters/mastra (lib/resolve-hooks.mjs), whose processor
// compiler, conversion and scripted model this adapter shares. Logs go to stderr.
import { register } from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';

const NEEDS = 'adapters/breakwater needs a Breakwater build: set BREAKWATER_MODULE to the path of an ES module that exports createGuardedAgent and AuditLogger (Breakwater 0.17.0 bundled with @mastra/core and zod as externals)';

const modulePath = process.env.BREAKWATER_MODULE;
if (!modulePath) {
  process.stderr.write(`${NEEDS}\n`);
  process.exit(2);
}
if (!existsSync(modulePath)) {
  process.stderr.write(`BREAKWATER_MODULE=${modulePath}: no such file. ${NEEDS}\n`);
  process.exit(2);
}

const mastraBase = new URL('../mastra/package.json', import.meta.url);
register('./lib/resolve-hooks.mjs', import.meta.url, { data: { base: mastraBase.href } });

const { writeLine } = await import('../mastra/lib/stdio.mjs');
const { ProtocolError, describe, isPlainObject } = await import('../mastra/lib/protocol-error.mjs');
const { serveLines } = await import('../mastra/lib/serve.mjs');
const { runGuarded } = await import('./lib/guarded.mjs');

// The build's identity: the sha256 of the module file's bytes, read before it is imported, so
// that results and reports name the build that answered (docs/protocol.md, `build`).
const BUILD = { sha256: createHash('sha256').update(readFileSync(modulePath)).digest('hex') };
const bw = await import(pathToFileURL(modulePath).href);
for (const name of ['createGuardedAgent', 'AuditLogger']) {
  if (typeof bw[name] !== 'function') {
    process.stderr.write(`BREAKWATER_MODULE=${modulePath} does not export ${name}. ${NEEDS}\n`);
    process.exit(2);
  }
}
const require = createRequire(mastraBase);
const MASTRA_VERSION = JSON.parse(readFileSync(require.resolve('@mastra/core/package.json'), 'utf8')).version;
const VERSION = `${typeof bw.BREAKWATER_VERSION === 'string' ? bw.BREAKWATER_VERSION : 'unknown'} over @mastra/core ${MASTRA_VERSION}`;
const PROTOCOL = 1;

function idOf(req) {
  if (!isPlainObject(req) || !('id' in req)) return null;
  return typeof req.id === 'string' || typeof req.id === 'number' ? req.id : null;
}

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
    if (typeof req.kind !== 'string') throw new ProtocolError('$.kind', `expected a request kind, got ${describe(req.kind)}`);
    switch (req.kind) {
      case 'hello':
      case 'start':
        return {
          reply: { id, status: 'ok', implementation: 'breakwater', version: VERSION, build: BUILD, protocol: PROTOCOL, kinds: ['hello', 'run', 'stop'], modes: ['guarded'], fields: { guarded: GUARDED_FIELDS_DECLARED }, compare: { normalise: 'mastra' } },
        };
      case 'stop':
        return { reply: { id, status: 'ok' }, stop: true };
      case 'run':
        return { reply: { id, ...(await runGuarded(req, bw)) } };
      default:
        return { reply: { id, status: 'skipped', reason: `request kind ${JSON.stringify(req.kind)} is not implemented by this adapter` } };
    }
  } catch (err) {
    if (err instanceof ProtocolError) return { reply: { id, status: 'errored', detail: err.message } };
    return { reply: { id, status: 'errored', detail: `$: adapter failure: ${err?.name ?? 'Error'}: ${err?.message ?? err}` } };
  }
}

const { GUARDED_FIELDS: GUARDED_FIELDS_DECLARED } = await import('./lib/guarded.mjs');
// One run at a time: a run sets the global clock to its scenario's (lib/guarded.mjs).
serveLines(handle, writeLine);

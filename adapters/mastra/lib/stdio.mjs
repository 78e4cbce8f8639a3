// Keeps stdout for protocol lines only. Mastra's ConsoleLogger and the workflow engine write
// to console; every console method and any stray process.stdout.write go to stderr instead.
// Import this module before anything from @mastra/core.
import { format } from 'node:util';

const realStdoutWrite = process.stdout.write.bind(process.stdout);
const toStderr = (...args) => {
  process.stderr.write(format(...args) + '\n');
};

for (const method of ['log', 'info', 'warn', 'debug', 'trace', 'dir', 'table']) {
  console[method] = toStderr;
}
process.stdout.write = process.stderr.write.bind(process.stderr);

/** Write one protocol line (a JSON value) to the real stdout. */
export function writeLine(value) {
  realStdoutWrite(JSON.stringify(value) + '\n');
}

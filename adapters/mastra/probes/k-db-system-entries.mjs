// (k) DB-shaped (format 2) system entries in the untagged bucket: what replaceAllSystemMessages
// keeps, what a later addSystem does, and what the prompt gets.
import { list, show, text, db } from './common.mjs';

const attempt = (label, fn) => {
  try { const r = fn(); show(label, r === undefined ? 'ok' : r); } catch (e) { show(label, `${e.id ?? e.name}: ${e.message.split('\n')[0]}`); }
};
const dbSys = (id, parts) => ({ ...db(id, 'system', 5, parts) });
{
  const l = list();
  attempt('replaceAllSystemMessages([db n1 [text note-00]])', () => { l.replaceAllSystemMessages([dbSys('n1', [text('note-00')])]); });
  show('untagged', l.getSystemMessages());
  attempt('then addSystem("note-01")', () => { l.addSystem('note-01'); });
  show('untagged', l.getSystemMessages());
  attempt('then addSystem("note-02", "tagA")', () => { l.addSystem('note-02', 'tagA'); });
  attempt('get.all.aiV5.prompt()', () => l.get.all.aiV5.prompt());
}
{
  const l = list();
  l.add('hi', 'input');
  attempt('replaceAll([db [text a, text b]]) then prompt', () => { l.replaceAllSystemMessages([dbSys('n1', [text('a'), text('b')])]); return l.get.all.aiV5.prompt(); });
  attempt('replaceAll([{role:system, content:[text a, text b]}]) then prompt', () => { l.replaceAllSystemMessages([{ role: 'system', content: [text('a'), text('b')] }]); return l.get.all.aiV5.prompt(); });
  attempt('replaceAll([{role:system, content:"x", experimental_providerMetadata:{note:1}, providerOptions:{note:2}}]) then prompt', () => { l.replaceAllSystemMessages([{ role: 'system', content: 'x', experimental_providerMetadata: { note: 1 }, providerOptions: { note: 2 } }]); return l.get.all.aiV5.prompt(); });
  attempt('add(db system [text a], "input")', () => { l.add(dbSys('n5', [text('a')]), 'input'); return l.getSystemMessages(); });
}

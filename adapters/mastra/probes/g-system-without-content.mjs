// (g) addSystem of a system message with no content: stored, and it poisons later adds to that bucket.
import { list, show } from './common.mjs';

const attempt = (label, fn) => {
  try { fn(); show(label, 'ok'); } catch (e) { show(label, `${e.id ?? e.name}: ${e.message.split('\n')[0]}`); }
};
const l = list();
attempt('addSystem({role:"system"})', () => l.addSystem({ role: 'system' }));
show('untagged after', l.getSystemMessages());
attempt('then addSystem("x") untagged', () => l.addSystem('x'));
attempt('then addSystem("x", "tagA")', () => l.addSystem('x', 'tagA'));
attempt('then add({role:"system",content:"y"}, "input")', () => l.add({ role: 'system', content: 'y' }, 'input'));
attempt('addSystem({role:"system", content: undefined}) on a fresh list', () => list().addSystem({ role: 'system', content: undefined }));
show('untagged finally', l.getSystemMessages());

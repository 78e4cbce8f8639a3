// (c) createdAt watermark: when does Mastra bump an input message's createdAt?
import { list, db, text, show } from './common.mjs';

const at = l => l.messages.map(m => `${m.id}@${m.createdAt.getTime()}`);

function run(label, steps) {
  const l = list();
  for (const [msg, src] of steps) l.add(msg, src);
  show(label, at(l));
}

run('DB input@1000 after memory@5000', [[db('m', 'user', 5000, [text('a')]), 'memory'], [db('i', 'user', 1000, [text('b')]), 'input']]);
run('DB input@5000 after memory@5000 (equal)', [[db('m', 'user', 5000, [text('a')]), 'memory'], [db('i', 'user', 5000, [text('b')]), 'input']]);
run('DB input@1000 after input@5000', [[db('i1', 'user', 5000, [text('a')]), 'input'], [db('i2', 'user', 1000, [text('b')]), 'input']]);
const v4 = (id, createdAt, t) => ({ id, role: 'user', content: t, createdAt: new Date(createdAt) });
run('core-v4 input@1000 after memory@5000', [[db('m', 'user', 5000, [text('a')]), 'memory'], [v4('i', 1000, 'b'), 'input']]);
run('core-v4 input@5000 after memory@5000 (equal)', [[db('m', 'user', 5000, [text('a')]), 'memory'], [v4('i', 5000, 'b'), 'input']]);
run('core-v4 memory@1000 after input@5000', [[v4('i', 5000, 'b'), 'input'], [v4('m', 1000, 'a'), 'memory']]);
run('core-v4 first message@1000 as input', [[v4('i', 1000, 'b'), 'input']]);
const ui = (id, createdAt, t) => ({ id, role: 'user', parts: [{ type: 'text', text: t }], createdAt: new Date(createdAt) });
run('ui-v5 input@1000 after memory@5000', [[db('m', 'user', 5000, [text('a')]), 'memory'], [ui('i', 1000, 'b'), 'input']]);
// A DB message without createdAt: filled by generateCreatedAt(source) = max(now, watermark+1).
const future = Date.now() + 3_600_000;
const noDate = id => ({ id, role: 'user', threadId: 't1', content: { format: 2, parts: [text('x')] } });
{
  const l = list();
  l.add(db('m', 'user', future, [text('a')]), 'memory');
  l.add(noDate('i'), 'input');
  l.add(noDate('k'), 'memory');
  show('DB without createdAt after memory@now+1h (input, then memory)', l.messages.map(m => `${m.id}@${m.createdAt.getTime() - future >= 0 ? 'future+' + (m.createdAt.getTime() - future) : 'now'}`));
}
{
  const l = list();
  l.add('hello', 'input');
  l.add('again', 'input');
  const [a, b] = l.messages.map(m => m.createdAt.getTime());
  show('two strings added back to back: second - first (ms)', b - a);
}

// (k) A message's content.metadata in the prompt: the keys of each prompt message, per role.
import { list, show, text, db } from './common.mjs';
for (const md of [{ a: 1 }, [null, 1], 'str']) {
  const l = list();
  const u = db('u0', 'user', 4, [text('q')]); u.content.metadata = md;
  const a = db('a0', 'assistant', 5, [text('yo')]); a.content.metadata = md;
  l.add(u, 'input'); l.add(a, 'response');
  const p = await l.get.all.aiV5.llmPrompt();
  show(`metadata ${JSON.stringify(md)}`, p.map(m => [m.role, Object.keys(m), m.providerOptions ?? null]));
}

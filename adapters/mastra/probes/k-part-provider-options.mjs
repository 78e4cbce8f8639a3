// (k) Part providerOptions vs providerMetadata in the prompt, per role and namespace.
import { list, show, text, db } from './common.mjs';
for (const role of ['user', 'assistant']) for (const field of ['providerOptions', 'providerMetadata']) for (const po of [{ note: 'n' }, { openai: { x: 1 } }, null]) for (const stamp of [true, false]) {
  const l = list();
  if (role === 'assistant') l.add(db('u0', 'user', 4, [text('q')]), 'input');
  const part = { type: 'text', text: 'hi', [field]: po };
  if (stamp) part.createdAt = 7;
  l.add(db('m1', role, 5, [part]), role === 'user' ? 'input' : 'response');
  try { const p = await l.get.all.aiV5.llmPrompt(); show(`${role} ${field} ${JSON.stringify(po)} stamp=${stamp}`, p.filter(m => m.role === role).map(m => m.content)); } catch (e) { show("error", e.message); }
}

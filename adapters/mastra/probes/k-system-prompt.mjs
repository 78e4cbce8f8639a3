// (k) System entries as the model receives them (llmPrompt), and part providerOptions.
import { list, show, text, db } from './common.mjs';
{
const entries = {
  str: { role: 'system', content: 'x', providerOptions: { note: 2 }, experimental_providerMetadata: { note: 1 } },
  textsPO: { role: 'system', content: [{ type: 'text', text: 'a', providerOptions: { note: 3 } }, { type: 'text', text: 'b' }] },
  textFile: { role: 'system', content: [{ type: 'text', text: 'a' }, { type: 'file', mimeType: 'text/plain', data: 'aGk=' }] },
  textImage: { role: 'system', content: [{ type: 'text', text: 'a' }, { type: 'image', image: 'aGk=' }] },
  tool: { role: 'system', content: [{ type: 'tool-invocation', toolInvocation: { state: 'result', toolCallId: 't', toolName: 'n', args: {}, result: 1 } }] },
  reasoning: { role: 'system', content: [{ type: 'reasoning', reasoning: 'r', details: [{ type: 'text', text: 'r' }] }, { type: 'text', text: 'a' }] },
  nocontent: { role: 'system' },
  undef: { role: 'system', content: undefined },
  number: { role: 'system', content: 5 },
  obj: { role: 'system', content: { a: 1 } },
  dbs: db('n1', 'system', 5, [text('note-00')]),
  empty: { role: 'system', content: '' },
  emptyArr: { role: 'system', content: [] },
};
for (const [k, e] of Object.entries(entries)) {
  const l = list();
  l.add(db('u1', 'user', 5, [text('hi')]), 'input');
  try { l.replaceAllSystemMessages([e]); const p = await l.get.all.aiV5.llmPrompt(); show(k, p.filter(m => m.role === 'system')); } catch (err) { show(k, `${err.id ?? err.name}: ${err.message.split('\n')[0]}`); }
}
}
{
const t = (x, po) => po === undefined ? { type: 'text', text: x } : { type: 'text', text: x, providerOptions: po };
const entries = {
  twoPO: { role: 'system', content: [t('a', { note: 1 }), t('b', { note: 2, other: 3 })] },
  secondPO: { role: 'system', content: [t('a'), t('b', { note: 2 })] },
  msgAndPart: { role: 'system', content: [t('a', { note: 1 })], providerOptions: { note: 9, x: 1 } },
  msgOnlyArr: { role: 'system', content: [t('a')], providerOptions: { note: 9 } },
  msgNull: { role: 'system', content: 'a', providerOptions: null },
  partNull: { role: 'system', content: [t('a', null)] },
  exp: { role: 'system', content: [t('a')], experimental_providerMetadata: { note: 1 } },
  emptyText: { role: 'system', content: [t('')] },
  strPO: { role: 'system', content: 'a', providerOptions: { openai: { x: 1 } } },
};
for (const [k, e] of Object.entries(entries)) {
  const l = list();
  l.add(db('u1', 'user', 5, [text('hi')]), 'input');
  try { l.replaceAllSystemMessages([e]); const p = await l.get.all.aiV5.llmPrompt(); show(k, p.filter(m => m.role === 'system')); } catch (err) { show(k, `${err.id ?? err.name}: ${err.message.split('\n')[0]}`); }
}
}
{
const t = (x, po) => po === undefined ? { type: 'text', text: x } : { type: 'text', text: x, providerOptions: po };
const entries = {
  partsXY: { role: 'system', content: [t('a', { x: 1 }), t('b', { y: 2 })] },
  msgVsPart: { role: 'system', content: [t('a', { y: 1 })], providerOptions: { note: 9 } },
  poVsExp: { role: 'system', content: 'a', providerOptions: { a: 1 }, experimental_providerMetadata: { b: 2 } },
  expOnly: { role: 'system', content: 'a', experimental_providerMetadata: { b: 2 } },
  poNullExp: { role: 'system', content: 'a', providerOptions: null, experimental_providerMetadata: { b: 2 } },
  deep: { role: 'system', content: [t('a', { n: { x: 1 } }), t('b', { n: { y: 2 } })] },
  toolText: { role: 'system', content: [{ type: 'tool-invocation', toolInvocation: { state: 'result', toolCallId: 't', toolName: 'n', args: {}, result: 1 } }, t('a')] },
  poString: { role: 'system', content: 'a', providerOptions: 'zz' },
  partPoStr: { role: 'system', content: [t('a', 'zz')] },
};
for (const [k, e] of Object.entries(entries)) {
  const l = list();
  l.add(db('u1', 'user', 5, [text('hi')]), 'input');
  try { l.replaceAllSystemMessages([e]); const p = await l.get.all.aiV5.llmPrompt(); show(k, p.filter(m => m.role === 'system')); } catch (err) { show(k, `${err.id ?? err.name}: ${err.message.split('\n')[0]}`); }
}
// addSystem path (stored converted) for comparison
for (const [k, e] of Object.entries({ addArrPO: { role: 'system', content: [t('a', { x: 1 }), t('b')], providerOptions: { m: 1 } }, addExp: { role: 'system', content: [t('a', { x: 1 }), t('b')], experimental_providerMetadata: { e: 1 } } })) {
  const l = list();
  l.add(db('u1', 'user', 5, [text('hi')]), 'input');
  try { l.addSystem(e); show(k + ' stored', l.getSystemMessages()); const p = await l.get.all.aiV5.llmPrompt(); show(k, p.filter(m => m.role === 'system')); } catch (err) { show(k, `${err.id ?? err.name}: ${err.message.split('\n')[0]}`); }
}
}

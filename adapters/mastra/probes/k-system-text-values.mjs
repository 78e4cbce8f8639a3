// (k) System text parts whose text is not a string, or is a getter: what addSystem stores and
// what the model receives (docs/mastra-measurements.md §k, k16/k17).
import { list, show, text, db } from './common.mjs';

const getter = (v, throws = false) => {
  const p = { type: 'text' };
  Object.defineProperty(p, 'text', { get: throws ? function () { throw new Error('getter throws'); } : function () { return v; }, enumerable: true });
  return p;
};
const t = x => ({ type: 'text', text: x });
const values = {
  obj: t({}), arr: t(['a', null, 'b']), num: t(1), nul: t(null), undef: t(undefined), bool: t(true),
  big: t(5n), getter: getter('note-00'), getterObj: getter({ a: 1 }), getterThrows: getter('x', true),
  sym: t(Symbol('s')), fn: t(function named() { return 1; }), two: [t('a'), t({})],
  textFile: [t('a'), { type: 'file', mediaType: 'text/plain', data: 'aGk=' }],
  textTool: [t('a'), { type: 'tool-invocation', toolCallId: 'c', toolName: 'n', state: 'call', args: {} }],
  textReasoning: [{ type: 'reasoning', text: 'r' }, t('a')],
  onlyFile: [{ type: 'file', mediaType: 'text/plain', data: 'aGk=' }],
  nulPart: [null, t('a')], emptyText: [t('')],
};
for (const [k, v] of Object.entries(values)) {
  const content = Array.isArray(v) ? v : [v];
  for (const path of ['v5', 'v4']) {
    const e = { role: 'system', content };
    if (path === 'v4') e.experimental_providerMetadata = null;
    const l = list();
    l.add(db('u1', 'user', 5, [text('hi')]), 'input');
    try {
      l.addSystem(e);
      const stored = l.getSystemMessages().map(m => typeof m.content === 'string' ? m.content : Array.isArray(m.content) ? m.content.map(p => Object.getOwnPropertyDescriptor(p ?? {}, 'text')?.get ? `getter` : typeof p?.text) : m.content);
      let sent;
      try { sent = (await l.get.all.aiV5.llmPrompt()).filter(m => m.role === 'system').map(m => m.content); } catch (err) { sent = `${err.id ?? err.name}: ${err.message.split('\n')[0]}`; }
      show(`${k} ${path} addSystem`, { stored, sent });
    } catch (err) { show(`${k} ${path} addSystem`, `${err.id ?? err.name}: ${err.message.split('\n')[0]}`); }
    const l2 = list();
    l2.add(db('u1', 'user', 5, [text('hi')]), 'input');
    try {
      l2.replaceAllSystemMessages([e]);
      show(`${k} ${path} replaceAll sent`, (await l2.get.all.aiV5.llmPrompt()).filter(m => m.role === 'system').map(m => m.content));
    } catch (err) { show(`${k} ${path} replaceAll`, `${err.id ?? err.name}: ${err.message.split('\n')[0]}`); }
  }
}

// (b) part stamping: which parts get createdAt; is an existing stamp kept; is a memory add stamped?
import { list, db, text, tool, show } from './common.mjs';

const stamps = m => m.content.parts.map(p => `${p.type}:${p.createdAt === undefined ? 'none' : typeof p.createdAt === 'number' ? (p.createdAt === 42 ? 'kept42' : 'now') : typeof p.createdAt}`);

for (const source of ['memory', 'input', 'response', 'context']) {
  const l = list();
  const m = db('m1', 'assistant', 1000, [
    { type: 'step-start' },
    text('a'),
    { ...text('b'), createdAt: 42 },
    tool('call'),
    { type: 'reasoning', reasoning: 'r', details: [] },
    { type: 'file', mimeType: 'text/plain', data: 'aGk=' },
    { type: 'data-x', data: { k: 1 } },
  ]);
  const before = m.content.parts;
  l.add(m, source);
  const stored = l.messages[0];
  show(`${source}`, { stamps: stamps(stored), sameMessageObject: stored === m, sameArray: stored.content.parts === before, samePartObjects: stored.content.parts.every((p, i) => p === before[i]) });
}

// Non-DB inputs: a string and an AI SDK v4 core message, and a UI v5 message.
for (const [label, input] of [
  ['string', 'hello'],
  ['core v4 {role,content:string}', { role: 'user', content: 'hello' }],
  ['ui v5 {id,role,parts}', { id: 'ui1', role: 'user', parts: [{ type: 'text', text: 'hello' }] }],
]) {
  for (const source of ['memory', 'input']) {
    const l = list();
    l.add(input, source);
    show(`${label} as ${source}`, stamps(l.messages[0]));
  }
}

// Re-adding a memory message under input stamps the parts of the object handed in (fingerprint change, G9).
{
  const l = list();
  const m = db('m1', 'user', 1000, [text('x')]);
  l.add(m, 'memory');
  const before = stamps(m);
  l.add(m, 'input');
  show('memory object re-added as input (same object)', { before, after: stamps(m) });
}
// Merge path: incoming parts merged into the latest assistant message.
{
  const l = list();
  l.add(db('a1', 'assistant', 1000, [text('first')]), 'memory');
  l.add(db('a2', 'assistant', 2000, [text('second')]), 'response');
  show('response merged into memory assistant', { ids: l.messages.map(m => m.id), stamps: stamps(l.messages[0]) });
}

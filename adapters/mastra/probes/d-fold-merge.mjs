// (d) M3 memory fold and M4 assistant merge: the mastra-facts §1.4 / §6 examples.
import { list, db, text, tool, sets, checker, show } from './common.mjs';

const partsOf = m => m.content.parts.map(p => p.type === 'tool-invocation'
  ? `tool(${p.toolInvocation.toolCallId},${p.toolInvocation.state}${p.toolInvocation.result !== undefined ? ',result=' + JSON.stringify(p.toolInvocation.result) : ''}${p.toolInvocation.errorText ? ',error=' + p.toolInvocation.errorText : ''}${p.toolInvocation.approval ? ',approval=' + JSON.stringify(p.toolInvocation.approval) : ''})`
  : p.type === 'text' ? `text(${JSON.stringify(p.text)})` : p.type);
const report = l => ({ list: sets(l), checker: checker(l), parts: Object.fromEntries(l.messages.map(m => [m.id, partsOf(m)])) });

const u1 = () => db('u1', 'user', 1000, [text('where am I?')]);
const a1Stored = (state = 'call', extra = {}) => db('a1', 'assistant', 2000, [{ type: 'step-start' }, text('let me check'), tool(state, extra)]);
const a1Client = (state, extra = {}) => db('a1', 'assistant', 2000, [tool(state, extra)]);

// M3 fold: input first, then memory (the real agent order).
for (const [state, extra] of [
  ['result', { result: { city: 'Paris' } }],
  ['output-error', { errorText: 'boom' }],
  ['output-denied', { approval: { id: 'ap1', approved: false, reason: 'no' } }],
  ['approval-responded', { approval: { id: 'ap1', approved: true } }],
  ['call', {}],
]) {
  const l = list();
  l.add(a1Client(state, extra), 'input');
  l.add([u1(), a1Stored()], 'memory');
  show(`fold: input a1(${state}) then memory [u1, a1(call)]`, report(l));
}
{
  const l = list();
  l.add(a1Client('result', { result: 'Paris' }), 'input');
  l.add([u1(), a1Stored('result', { result: 'Stored' })], 'memory');
  show('fold: stale echo result=Paris onto stored result=Stored', report(l));
}
{
  const l = list();
  l.add(a1Client('result', { result: { city: 'Paris' } }), 'input');
  l.add([u1(), a1Stored('approval-requested', { approval: { id: 'ap1' } })], 'memory');
  show('fold: result onto stored approval-requested', report(l));
}
// Memory first, then input: assistant merge (M4 path, no rank check).
{
  const l = list();
  l.add([u1(), a1Stored('result', { result: 'Stored' })], 'memory');
  l.add(a1Client('result', { result: 'Paris' }), 'input');
  show('memory first [u1, a1(result=Stored)], then input echo result=Paris', report(l));
}
{
  const l = list();
  l.add([u1(), a1Stored()], 'memory');
  l.add(a1Client('result', { result: { city: 'Paris' } }), 'input');
  show('memory first [u1, a1(call)], then input a1(result)', { ...report(l), toolInvocationsMirror: l.messages[1].content.toolInvocations ?? null });
}
// User message: memory first then input with different text; input first then memory.
{
  const l = list();
  l.add(u1(), 'memory');
  l.add(db('u1', 'user', 3000, [text('edited')]), 'input');
  show('user u1 memory then input (different text)', report(l));
}
{
  const l = list();
  l.add(db('u1', 'user', 3000, [text('edited')]), 'input');
  l.add(u1(), 'memory');
  show('user u1 input then memory (different text)', report(l));
}
// M4: two response assistant adds merge; merge:false keeps them apart.
{
  const l = list();
  l.add(u1(), 'input');
  l.add(db('resp1', 'assistant', 2000, [text('one')]), 'response');
  l.add(db('resp2', 'assistant', 3000, [text('two')]), 'response');
  l.add(db('resp3', 'assistant', 4000, [text('three')]), 'response', { merge: false });
  show('M4: resp1, resp2 (merge), resp3 {merge:false}', report(l));
}
{
  const l = list();
  l.add(db('a1', 'assistant', 2000, [text('one')]), 'memory');
  l.add(db('a2', 'assistant', 3000, [text('two')]), 'memory');
  show('M4: two memory assistant adds (no merge from memory)', report(l));
}
{
  const l = list();
  l.add(db('a1', 'assistant', 2000, [text('one')]), 'input');
  l.add(db('a2', 'assistant', 3000, [text('two')]), 'input');
  show('M4: two input assistant adds', report(l));
}
{
  const l = list();
  l.add(db('a1', 'assistant', 2000, [text('one')]), 'memory');
  l.add({ ...db('a2', 'assistant', 3000, [text('two')]), threadId: 'other' }, 'memory');
  l.add(db('a3', 'assistant', 4000, [text('three')]), 'input');
  show('M4: latest assistant of another thread (memory), then input assistant', report(l));
}
// §6 clear/remove.
{
  const l = list();
  l.add(a1Client('result', { result: { city: 'Paris' } }), 'input');
  l.add([u1(), a1Stored()], 'memory');
  l.add(db('n1', 'user', 3000, [text('tell me about Paris')]), 'input');
  const cleared = l.clear.input.db().map(m => m.id);
  show('§6 clear.input.db()', { returned: cleared, left: sets(l), remembered: l.get.remembered.db().map(m => m.id) });
  const l2 = list();
  l2.add([u1(), db('n1', 'user', 3000, [text('x')])], 'memory');
  show('§6 removeByIds', l2.removeByIds(['u1', 'n1', 'does-not-exist']).map(m => m.id));
}

// (a) add of a DB message whose id is already on the list with EQUAL content (same cache key)
// under a different source: sources after, object replaced?, re-sorted?
import { list, db, text, tool, sets, detached, checker, show } from './common.mjs';

function run(label, first, second, { sameObject = false, between = [] } = {}) {
  const l = list();
  const orig = db('m1', first.role ?? 'user', 2000, first.parts ?? [text('hello')]);
  l.add(db('u0', 'user', 1000, [text('before')]), 'memory');
  l.add(orig, first.source);
  for (const [msg, src] of between) l.add(msg, src);
  const again = sameObject ? orig : db('m1', first.role ?? 'user', second.createdAt ?? 2000, first.parts ?? [text('hello')]);
  let err = null;
  try {
    l.add(again, second.source);
  } catch (e) {
    err = e.id ?? e.message;
  }
  const onList = l.messages.find(m => m.id === 'm1');
  show(label, {
    list: sets(l),
    detached: detached(l),
    checker: checker(l),
    keptOriginalObject: onList === orig,
    inputView: l.get.input.db().map(m => m.id),
    rememberedView: l.get.remembered.db().map(m => m.id),
    responseView: l.get.response.db().map(m => m.id),
    error: err,
  });
}

for (const sameObject of [false, true]) {
  const tag = sameObject ? 'same object' : 'fresh copy';
  console.log(`--- ${tag} ---`);
  run(`memory then input (${tag})`, { source: 'memory' }, { source: 'input' }, { sameObject });
  run(`input then memory (${tag})`, { source: 'input' }, { source: 'memory' }, { sameObject });
  run(`response then input (${tag})`, { source: 'response', role: 'assistant', parts: [text('answer')] }, { source: 'input' }, { sameObject });
  run(`memory then response (${tag})`, { source: 'memory', role: 'assistant', parts: [text('answer')] }, { source: 'response' }, { sameObject });
  run(`context then input (${tag})`, { source: 'context' }, { source: 'input' }, { sameObject });
  run(`input then context (${tag})`, { source: 'input' }, { source: 'context' }, { sameObject });
  run(`memory then memory (${tag})`, { source: 'memory' }, { source: 'memory' }, { sameObject });
}
console.log('--- fresh copy with a different createdAt ---');
run('memory@2000 then input copy@500', { source: 'memory' }, { source: 'input', createdAt: 500 });
run('memory@2000 then memory copy@500', { source: 'memory' }, { source: 'memory', createdAt: 500 });
console.log('--- assistant, equal content, latest message is assistant (merge path) ---');
run('memory assistant then input copy (fresh)', { source: 'memory', role: 'assistant', parts: [text('answer'), tool('call')] }, { source: 'input' });
console.log('--- assistant, equal content, not the latest message ---');
run('memory assistant then input copy, user after', { source: 'memory', role: 'assistant', parts: [text('answer')] }, { source: 'input' }, { between: [[db('u9', 'user', 3000, [text('later')]), 'memory']] });

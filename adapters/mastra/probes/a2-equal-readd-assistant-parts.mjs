// (a) follow-up: equal-content re-add of the latest assistant message goes through MessageMerger; are parts duplicated?
import { list, db, text, tool, sets } from './common.mjs';
for (const [s1, s2] of [['response','input'],['memory','input'],['memory','response'],['input','input']]) {
  const l = list();
  l.add(db('m1','assistant',2000,[text('answer'), tool('call')]), s1);
  l.add(db('m1','assistant',2000,[text('answer'), tool('call')]), s2);
  console.log(s1, s2, sets(l), JSON.stringify(l.messages[0].content.parts.map(p=>p.type+':'+(p.text??p.toolInvocation?.state))));
}

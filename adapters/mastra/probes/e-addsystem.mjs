// (e) addSystem with an object whose content is a list of text parts with providerOptions:
// what is stored, and the dedupe key.
import { list, show } from './common.mjs';

const po = v => ({ anthropic: { cacheControl: { type: v } } });
const partsMsg = (a, b, extra = {}) => ({
  role: 'system',
  content: [
    { type: 'text', text: a, providerOptions: po('ephemeral') },
    { type: 'text', text: b },
  ],
  ...extra,
});
const dump = l => ({ untagged: l.getSystemMessages(), tagged: l.taggedSystemMessages });

{
  const l = list();
  l.addSystem(partsMsg('hello', 'world', { providerOptions: po('msg') }));
  show('array content + part/message providerOptions', dump(l));
}
{
  const l = list();
  l.addSystem({ role: 'system', content: 'plain', providerOptions: po('msg'), experimental_providerMetadata: { x: { y: 1 } } });
  show('string content + providerOptions + experimental_providerMetadata', dump(l));
}
{
  const l = list();
  l.addSystem(partsMsg('hello', 'world'));
  l.addSystem(partsMsg('HELLO', 'WORLD'));
  l.addSystem(partsMsg('12345', '67890'));
  l.addSystem(partsMsg('hello', 'world!'));
  show('dedupe of array content: same lengths, different text', dump(l).untagged.map(m => m.content));
}
{
  const l = list();
  l.addSystem({ role: 'system', content: 'same', providerOptions: po('a') });
  l.addSystem({ role: 'system', content: 'same', providerOptions: po('b') });
  l.addSystem('same');
  l.addSystem('same', 'tagA');
  l.addSystem('same', 'tagA');
  show('dedupe of string content ignores providerOptions; per bucket', dump(l));
}
{
  const l = list();
  l.addSystem('hello world');
  l.addSystem({ role: 'system', content: [{ type: 'text', text: 'hello world' }] });
  show('string vs one-part array with the same text', dump(l).untagged);
}
{
  const l = list();
  const obj = { role: 'system', content: 'kept by reference?' };
  l.addSystem(obj);
  show('stored object is the one passed', l.getSystemMessages()[0] === obj);
}
{
  const l = list();
  l.addSystem({ id: 's1', role: 'system', createdAt: new Date(5), content: { format: 2, parts: [{ type: 'text', text: 'db system a' }, { type: 'text', text: 'b' }], content: 'db system a' } });
  show('DB-format system message', dump(l).untagged);
}
{
  const l = list();
  let err = null;
  try { l.addSystem({ role: 'user', content: 'not system' }); } catch (e) { err = e.id ?? `${e.name}: ${e.message.split('\n')[0]}`; }
  show('non-system role', err);
  l.add({ role: 'system', content: 'via add input' }, 'input');
  l.add({ role: 'system', content: 'via add memory' }, 'memory');
  show('add(system) input / memory', dump(l).untagged);
}
{
  const l = list();
  l.addSystem('a');
  l.addSystem('t', 'tagA');
  l.replaceAllSystemMessages([{ role: 'system', content: 'r1' }, { role: 'user', content: 'u' }, { role: 'system', content: 'r1' }, { role: 'system', content: [{ type: 'text', text: 'p', providerOptions: po('z') }] }]);
  show('replaceAllSystemMessages', dump(l));
}
// An experimental_providerMetadata key (any value) makes Mastra treat the message as AI SDK v4:
// it is then stored as handed in, array content and part providerOptions included.
{
  const l = list();
  const obj = { ...partsMsg('hello', 'world', { providerOptions: po('msg') }), experimental_providerMetadata: undefined };
  l.addSystem(obj);
  show('v4 path (experimental_providerMetadata key present): stored', dump(l).untagged);
  show('v4 path: stored object is the one passed', l.getSystemMessages()[0] === obj);
  l.addSystem({ role: 'system', content: [{ type: 'text', text: 'HELLO' }, { type: 'text', text: 'WORLD' }], experimental_providerMetadata: {} });
  l.addSystem({ role: 'system', content: [{ type: 'text', text: 'HELLO!' }, { type: 'text', text: 'WORLD' }], experimental_providerMetadata: {} });
  show('v4 path dedupe (same part types + text lengths = duplicate)', dump(l).untagged.map(m => m.content));
}
{
  const l = list();
  l.addSystem({ role: 'system', content: 'plain', providerOptions: po('msg') });
  const stored = l.getSystemMessages()[0];
  show('v5 path: string content with providerOptions only', stored);
}

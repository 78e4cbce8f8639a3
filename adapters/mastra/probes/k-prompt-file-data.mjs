// (k) What a file part's data is in the prompt the language model receives (LanguageModelV2Prompt),
// for user and assistant messages and several data values (docs/mastra-measurements.md §k).
import { Agent } from '@mastra/core/agent';
import { scriptedModel } from './scripted-model.mjs';

const show = (label, v) => console.log(`${label}: ${v}`);
const describe = d => d instanceof URL ? `URL(${d.href})` : d instanceof Uint8Array ? `Uint8Array(${Buffer.from(d).toString('utf8')})` : `${typeof d} ${JSON.stringify(d)}`;

for (const [label, data] of Object.entries({ obj: { answer: 'note-12' }, num: 1, b64: 'aGk=', url: 'https://example.com/x', dataUri: 'data:text/plain;base64,aGk=', bad: 'note-00',
  sym: Symbol('s'), fn: function named() { return 1; }, big: 5n, arr: ['a', null, 2], half: 0.5, inf: Infinity, nul: null, undef: undefined, bool: true,
  getterObj: Object.defineProperty({}, 'a', { get() { return 1; }, enumerable: true }), klass: new (class Klass {})() })) {
  for (const role of ['assistant', 'user']) {
    const model = scriptedModel(() => 'ok');
    const agent = new Agent({ id: 'a', name: 'a', instructions: 'sys', model });
    const messages = [
      { id: 'u1', role: 'user', createdAt: new Date(1), content: { format: 2, parts: [{ type: 'text', text: 'hi' }] } },
      { id: 'm2', role, createdAt: new Date(2), content: { format: 2, parts: [{ type: 'text', text: 'see' }, { type: 'file', mimeType: 'text/plain', data }] } },
      { id: 'u3', role: 'user', createdAt: new Date(3), content: { format: 2, parts: [{ type: 'text', text: 'ok?' }] } },
    ];
    try {
      await agent.generate(messages);
      const files = model.calls[0].prompt.flatMap(m => Array.isArray(m.content) ? m.content.filter(c => c.type === 'file').map(c => `${m.role} ${describe(c.data)}`) : []);
      show(`${label} in ${role}`, files.join('; '));
    } catch (err) { show(`${label} in ${role}`, `${err.id ?? err.name}: ${err.message.split('\n')[0]}`); }
  }
}

// The conversion of system messages' own accessors: run with `node --test adapters/mastra/test/`.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { newValueContext, systemToMastra, systemFromMastra } from '../lib/convert.mjs';

const FIELDS = ['content', 'providerOptions', 'experimental_providerMetadata'];

test('a system message field given as {$getter} is an own enumerable, configurable accessor', () => {
  for (const field of FIELDS) {
    const s = systemToMastra({ role: 'system', content: 'x', [field]: { $getter: 'g', value: 'v' } }, newValueContext());
    const d = Object.getOwnPropertyDescriptor(s, field);
    assert.equal(typeof d.get, 'function', field);
    assert.equal(d.enumerable, true);
    assert.equal(d.configurable, true);
    assert.equal(s[field], 'v');
  }
});

test("a content getter's value is decoded as content: text parts, a getter on a text kept", () => {
  const s = systemToMastra({ role: 'system', content: { $getter: 'g', value: [{ type: 'text', text: { $getter: 't', value: 'hi' } }] } }, newValueContext());
  const [part] = s.content;
  assert.equal(typeof Object.getOwnPropertyDescriptor(part, 'text').get, 'function');
  assert.equal(part.text, 'hi');
});

test('a throwing getter throws `getter <name> throws`', () => {
  const s = systemToMastra({ role: 'system', content: 'x', providerOptions: { $getter: 'po', throws: true } }, newValueContext());
  assert.throws(() => s.providerOptions, { message: 'getter po throws' });
});

test('a bucket entry is reported with its accessors as given, never called', () => {
  const given = { role: 'system', content: { $getter: 'g', throws: true }, experimental_providerMetadata: { $getter: 'pm', value: { a: 1 } } };
  assert.deepEqual(systemFromMastra(systemToMastra(given, newValueContext())), given);
});

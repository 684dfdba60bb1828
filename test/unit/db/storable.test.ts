// Strings bound for PostgreSQL: U+0000 and lone surrogates become U+FFFD (text and jsonb cannot
// hold them), everything else is stored as sent, whichever path storableJson takes.
import { expect } from 'chai';
import { storableJson, storableValue } from '../../../src/db/storable.ts';

describe('storable JSON for PostgreSQL', () => {
  const cases: [string, unknown, unknown][] = [
    ['U+0000 becomes U+FFFD', { a: 'x\u0000y' }, { a: 'x\ufffdy' }],
    ['a lone surrogate becomes U+FFFD', { a: ['lone \ud800 here', 'and \udfff'] }, { a: ['lone \ufffd here', 'and \ufffd'] }],
    ['a surrogate pair is a character, kept', { a: 'pair \ud83d\ude00 ok' }, { a: 'pair \ud83d\ude00 ok' }],
    ['a literal backslash before "u0000" is text, kept', { a: 'back\\u0000slash' }, { a: 'back\\u0000slash' }],
    ['nothing to replace: the same value', { a: 'plain', b: [1, 'c', null] }, { a: 'plain', b: [1, 'c', null] }],
  ];
  for (const [title, value, stored] of cases) {
    it(title, () => {
      expect(JSON.parse(storableJson(value))).to.deep.equal(stored);
      expect(storableValue(value)).to.deep.equal(stored);
    });
  }

  it('storableValue is a copy without what JSON drops', () => {
    const value = { a: 'x', gone: undefined };
    const stored = storableValue(value);
    expect(stored).not.to.equal(value);
    expect(Object.keys(stored)).to.deep.equal(['a']);
  });
});

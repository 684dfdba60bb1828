import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BLOCKED_RANGES } from '../../../src/images/address-policy.ts';
import { REPO_ROOT } from '../../support/images/fixtures.ts';

// docs/spec holds the repository's copy of the specification; .ci/run holds it equal to
// ../shared/spec. The blocked ranges ship inside src/images because the service loads them.
describe('spec copies: the blocked ranges the service loads are the specification file', () => {
  const spec = path.join(REPO_ROOT, 'docs', 'spec', 'blocked-ranges.json');
  const copy = path.join(REPO_ROOT, 'src', 'images', 'blocked-ranges.json');

  it('src/images/blocked-ranges.json equals docs/spec/blocked-ranges.json, entry for entry', () => {
    expect(JSON.parse(readFileSync(copy, 'utf8'))).to.deep.equal(JSON.parse(readFileSync(spec, 'utf8')));
  });

  it('the policy loads every entry, must and should alike, so all of them are refused (R22)', () => {
    expect(BLOCKED_RANGES.length).to.equal(JSON.parse(readFileSync(copy, 'utf8')).length);
    expect(new Set(BLOCKED_RANGES.map((r) => r.level))).to.deep.equal(new Set(['must', 'should']));
  });
});

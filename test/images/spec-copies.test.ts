import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { BLOCKED_RANGES } from '../../src/images/address-policy.ts';
import { REPO_ROOT, SHARED_SPEC } from './support/fixtures.ts';

describe('spec copies: the committed blocked ranges and SSRF samples are the specification files (issue 3)', () => {
  const spec = path.join(SHARED_SPEC, 'blocked-ranges.json');
  const copy = path.join(REPO_ROOT, 'src', 'images', 'blocked-ranges.json');

  it('src/images/blocked-ranges.json equals shared/spec/blocked-ranges.json, entry for entry', function () {
    if (!existsSync(spec)) this.skip();
    expect(JSON.parse(readFileSync(copy, 'utf8'))).to.deep.equal(JSON.parse(readFileSync(spec, 'utf8')));
  });

  it('test/images/fixtures/ssrf-sample-cases.json equals shared/spec/ssrf-sample-cases.json', function () {
    const sample = path.join(SHARED_SPEC, 'ssrf-sample-cases.json');
    if (!existsSync(sample)) this.skip();
    const fixture = path.join(REPO_ROOT, 'test', 'images', 'fixtures', 'ssrf-sample-cases.json');
    expect(JSON.parse(readFileSync(fixture, 'utf8'))).to.deep.equal(JSON.parse(readFileSync(sample, 'utf8')));
  });

  it('the policy loads every entry, must and should alike (issue 3: all of them are refused)', () => {
    expect(BLOCKED_RANGES.length).to.equal(JSON.parse(readFileSync(copy, 'utf8')).length);
    expect(new Set(BLOCKED_RANGES.map((r) => r.level))).to.deep.equal(new Set(['must', 'should']));
  });
});

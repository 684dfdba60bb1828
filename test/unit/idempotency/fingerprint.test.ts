// Ruling R12: the idempotency fingerprint is SHA-256 over method, path and the canonical JSON of
// the parsed body (object keys sorted recursively): key order and whitespace do not make a
// different request; any value change does.
import { expect } from 'chai';
import fc from 'fast-check';
import { canonicalJson, requestFingerprint } from '../../../src/idempotency/fingerprint.ts';

const PATH = '/v1/evidence/reports';
const BODY = {
  context: 'damage_report',
  language: 'de',
  evidence: { text: 'Riss in der Wand', images: [{ url: 'https://a.example/1.png' }] },
};

/** The same value with every object's keys in reverse order. */
function reversedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversedKeys);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).reverse().map(([k, v]) => [k, reversedKeys(v)]));
  }
  return value;
}

describe('canonical JSON and the request fingerprint (R12)', () => {
  it('sorts object keys recursively, inside arrays too, and keeps array order (R12)', () => {
    expect(canonicalJson({ b: 1, a: { d: [{ z: 1, y: 2 }, 3], c: null } })).to.equal('{"a":{"c":null,"d":[{"y":2,"z":1},3]},"b":1}');
    expect(canonicalJson([2, 1])).to.not.equal(canonicalJson([1, 2]));
  });

  it('is the same for the same body sent with other key order or whitespace (R12)', () => {
    const compact = JSON.parse(JSON.stringify(BODY)) as unknown;
    const spaced = JSON.parse(JSON.stringify(reversedKeys(BODY), null, 4)) as unknown;
    expect(canonicalJson(spaced)).to.equal(canonicalJson(compact));
    expect(requestFingerprint('POST', PATH, spaced)).to.equal(requestFingerprint('POST', PATH, compact));
  });

  it('differs for any value change, including type-only changes (R12)', () => {
    const variants: unknown[] = [
      { ...BODY, language: 'fr' },
      { ...BODY, language: undefined, evidence: BODY.evidence },
      { ...BODY, evidence: { ...BODY.evidence, text: 'Riss in der Wand ' } },
      { ...BODY, evidence: { ...BODY.evidence, images: [] } },
      { a: 1 },
      { a: '1' },
      { a: true },
      { a: 'true' },
      { a: null },
      {},
      { a: [] },
      { a: {} },
    ];
    const canonical = variants.map((v) => canonicalJson(JSON.parse(JSON.stringify(v))));
    expect(new Set(canonical).size).to.equal(variants.length);
    expect(canonical).to.not.include(canonicalJson(BODY));
  });

  it('the fingerprint covers method and path as well as the body, as 64 hex characters (R12)', () => {
    const fingerprint = requestFingerprint('POST', PATH, BODY);
    expect(fingerprint).to.match(/^[0-9a-f]{64}$/);
    expect(requestFingerprint('post', PATH, BODY)).to.equal(fingerprint);
    expect(requestFingerprint('PUT', PATH, BODY)).to.not.equal(fingerprint);
    expect(requestFingerprint('POST', '/v1/evidence/reports/', BODY)).to.not.equal(fingerprint);
  });

  it('for any JSON value: parses back to the same value and ignores key order (property, R12)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const canonical = canonicalJson(value);
        expect(JSON.parse(canonical)).to.deep.equal(JSON.parse(JSON.stringify(value)));
        expect(canonicalJson(reversedKeys(value))).to.equal(canonical);
      }),
      { numRuns: 500 },
    );
  });
});

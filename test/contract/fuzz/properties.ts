// The hostile-input properties, shared by the CI run (test/contract/fuzz/*.test.ts, fixed seed,
// about 1,000 runs in all) and the long run (`npm run fuzz`, scripts/fuzz.ts). Every input
// goes through FuzzTarget.exchange, which holds the general properties; each property adds
// what the rulings fix for its inputs.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import fc from 'fast-check';
import type { Config } from '../../../src/config.ts';
import type { FuzzTarget } from './fuzz-target.ts';
import { REPORTS, hostileHeaders, hugeBodies, jsonHeaders, labelled, nestedBodies, randomBytes, randomJson, type HostileRequest } from './hostile-inputs.ts';
import { nearValidBody, validBody } from './request-body.ts';

/** The seed of the CI run: fixed, so that CI is reproducible (`npm run fuzz` draws its own). */
export const CI_SEED = 20_261_121;

export interface FuzzProperty {
  /** Short name for FUZZ_ONLY. */
  readonly id: string;
  readonly name: string;
  /** Runs in CI; the long run shares FUZZ_RUNS out in the same proportions. */
  readonly ciRuns: number;
  property(target: FuzzTarget): fc.IAsyncProperty<[HostileRequest[]]>;
  /** Inputs that once broke the service: run first, on every run, whatever the seed. */
  regressions?(target: FuzzTarget): HostileRequest[][];
}

const single = (arbitrary: fc.Arbitrary<HostileRequest>) => arbitrary.map((request) => [request]);

function exchangeAll(target: FuzzTarget) {
  return async (requests: HostileRequest[]) => {
    for (const request of requests) await target.exchange(request);
  };
}

interface ValidBody {
  language?: string;
  evidence: { text?: string; images?: { url: string }[] };
}

/** R7's unpublished limits, counted in characters (code points), as the configuration sets them. */
function overAnInputLimit(body: ValidBody, config: Pick<Config, 'evidenceTextMaxChars' | 'imageMaxCount' | 'imageUrlMaxChars' | 'languageMaxChars'>): boolean {
  const chars = (text: string): number => [...text].length;
  const images = body.evidence.images ?? [];
  return (
    chars(body.evidence.text ?? '') > config.evidenceTextMaxChars ||
    images.length > config.imageMaxCount ||
    images.some((image) => chars(image.url) > config.imageUrlMaxChars) ||
    chars(body.language ?? '') > config.languageMaxChars
  );
}

export const VALID_BODIES: FuzzProperty = {
  id: 'valid-bodies',
  name: 'valid bodies in every shape the schema allows: 201 (or 422 over an unpublished limit, R7); a replay is the same 201 (R13)',
  ciRuns: 250,
  property: (target) =>
    fc.asyncProperty(
      fc.record({ body: validBody, idempotency: fc.constantFrom('none', 'key', 'key and replay') }).map(({ body, idempotency }) => {
        // A fresh key per run, drawn outside fast-check: shrinking replays a run with a smaller
        // body, and the same key with another body would rightly be a 409.
        const key: Record<string, string> = idempotency === 'none' ? {} : { 'Idempotency-Key': `fuzz-${randomUUID()}` };
        const request = labelled({ method: 'POST', path: REPORTS, headers: { ...jsonHeaders(target.customer.apiKey), ...key }, raw: JSON.stringify(body), shape: 'valid body' });
        return idempotency === 'key and replay' ? [request, labelled({ ...request, shape: 'valid body, replayed' })] : [request];
      }),
      async ([first, replay]) => {
        if (first === undefined) return;
        const res = await target.exchange(first);
        const code = (res.body as { error?: { code?: string } }).error?.code;
        // A 422 only where the body passes one of R7's limits, as the instance is configured;
        // every other valid body is a 201.
        const expected = overAnInputLimit(JSON.parse(String(first.raw ?? '{}')) as ValidBody, target.service.config) ? 422 : 201;
        expect(res.status, `status ${res.status} ${res.text.slice(0, 300)}`).to.equal(expected);
        if (res.status === 422) expect(code).to.equal('invalid_evidence_report_input');
        if (replay === undefined) return;
        const again = await target.exchange(replay);
        expect(again.status).to.equal(res.status);
        if (res.status === 201) {
          expect(again.headers['idempotent-replayed']).to.equal('true');
          expect(again.body).to.deep.equal(res.body);
        }
      },
    ),
  regressions: (target) =>
    UNSTORABLE_BODIES.map((body) => {
      const headers = { ...jsonHeaders(target.customer.apiKey), 'Idempotency-Key': `fuzz-${randomUUID()}` };
      const request = labelled({ method: 'POST', path: REPORTS, headers, raw: JSON.stringify(body), shape: 'regression: unstorable characters' });
      return [request, labelled({ ...request, shape: 'regression: unstorable characters, replayed' })];
    }),
};

// U+0000 and lone surrogates in stored strings once failed the insert: 503 (fixed in 49bfd1c).
const UNSTORABLE_BODIES = [
  { context: 'damage_report', evidence: { text: 'a\u0000b' } },
  { context: 'damage_report', language: 'e\u0000n', evidence: { text: 'ab' } },
  { context: 'damage_report', evidence: { text: 'a\ud800b', images: [{ url: 'http://a.aa\u0000' }] } },
];

export const NEAR_VALID_BODIES: FuzzProperty = {
  id: 'near-valid-bodies',
  name: 'near-valid bodies (one rule broken at one place): 400 invalid_request_payload (R8)',
  ciRuns: 250,
  property: (target) =>
    fc.asyncProperty(
      single(
        nearValidBody.map((nearValid) =>
          labelled({
            method: 'POST',
            path: REPORTS,
            headers: jsonHeaders(target.customer.apiKey),
            raw: JSON.stringify(nearValid.body),
            expect: { status: 400, codes: ['invalid_request_payload'] },
            shape: `near-valid (${nearValid.rule} at ${nearValid.pointer || '/'})`,
          }),
        ),
      ),
      exchangeAll(target),
    ),
};

export const RANDOM_JSON: FuzzProperty = {
  id: 'random-json',
  name: 'random JSON values as the body: 400 unless valid (R29)',
  ciRuns: 150,
  property: (target) => fc.asyncProperty(single(randomJson(target.customer.apiKey)), exchangeAll(target)),
};

export const RANDOM_BYTES: FuzzProperty = {
  id: 'random-bytes',
  name: 'random bytes, alone or spliced into a valid body: invalid_json or invalid_request_payload unless valid (R29)',
  ciRuns: 100,
  property: (target) => fc.asyncProperty(single(randomBytes(target.customer.apiKey)), exchangeAll(target)),
};

export const RANDOM_HEADERS: FuzzProperty = {
  id: 'random-headers',
  name: 'random and repeated x-api-key, Idempotency-Key and content-type headers: the first failing check answers (R5, R6, R11, R29)',
  ciRuns: 200,
  property: (target) => fc.asyncProperty(single(hostileHeaders(target.customer.apiKey)), exchangeAll(target)),
  // A 255-character key with a surrounding no-break space once failed the header schema raw:
  // 400 invalid_request_payload instead of a valid key (fixed in b6a7a5c).
  regressions: (target) => [
    [
      labelled({
        method: 'POST',
        path: REPORTS,
        headers: { ...jsonHeaders(target.customer.apiKey), 'Idempotency-Key': `\u00a0${'k'.repeat(255)}` },
        raw: JSON.stringify({ context: 'damage_report', evidence: { text: 'ab' } }),
        expect: { status: 201 },
        shape: 'regression: padded 255-character Idempotency-Key',
      }),
    ],
  ],
};

export const HUGE_BODIES: FuzzProperty = {
  id: 'huge-bodies',
  name: 'bodies near and over the 1 MiB limit, with a length or chunked: 400 invalid_request_payload above it (R6)',
  ciRuns: 25,
  property: (target) => fc.asyncProperty(single(hugeBodies(target.customer.apiKey, target.service.config.bodyMaxBytes)), exchangeAll(target)),
};

export const NESTED_BODIES: FuzzProperty = {
  id: 'nested-bodies',
  name: 'bodies nested 1,000 to 200,000 levels deep: 400, never a crash',
  ciRuns: 25,
  property: (target) => fc.asyncProperty(single(nestedBodies(target.customer.apiKey, target.service.config.bodyMaxBytes)), exchangeAll(target)),
};

/** Path segments `new URL` keeps as they are (a dot segment would leave the route). */
const reportIdSegment = fc
  .oneof(
    fc.uuid(),
    fc.string({ minLength: 1, maxLength: 300, unit: 'grapheme' }),
    fc.string({ minLength: 1, maxLength: 40 }),
    fc.constantFrom('00000000-0000-0000-0000-000000000000', 'null', '%00', "' or 1=1 --", 'ers_live_x'),
  )
  .map((id) => encodeURIComponent(id))
  .filter((segment) => segment !== '.' && segment !== '..');

export const REPORT_IDS: FuzzProperty = {
  id: 'report-ids',
  name: 'GET /v1/evidence/reports/{id} with any id: 404 evidence_report_not_found for all but the caller\'s own reports (R54), never a 5xx',
  ciRuns: 150,
  property: (target) =>
    fc.asyncProperty(
      reportIdSegment.map((segment) => [
        labelled({
          method: 'GET',
          path: `${REPORTS}/${segment}`,
          headers: { 'x-api-key': target.customer.apiKey },
          expect: { status: 404, codes: ['evidence_report_not_found'] },
          shape: 'report id',
        }),
      ]),
      exchangeAll(target),
    ),
};

export const ALL_PROPERTIES: readonly FuzzProperty[] = [
  VALID_BODIES,
  NEAR_VALID_BODIES,
  RANDOM_JSON,
  RANDOM_BYTES,
  RANDOM_HEADERS,
  HUGE_BODIES,
  NESTED_BODIES,
  REPORT_IDS,
];

/** Runs one property; fast-check's report (seed, path, shrunk counterexample) is the error. */
export async function checkProperty(property: FuzzProperty, target: FuzzTarget, parameters: { seed: number; numRuns: number; path?: string }): Promise<void> {
  const examples = (property.regressions?.(target) ?? []).map((requests): [HostileRequest[]] => [requests]);
  await fc.assert(property.property(target), { seed: parameters.seed, numRuns: parameters.numRuns, path: parameters.path, examples });
}

// Unit tier: the create-report use case on fakes. Spec section 1: the steps run in
// order, a failure at any step stops processing, and each error code comes from its own step
// (spec section 7); nothing is stored and no key stays claimed after a failure (R14, R15).
import { expect } from 'chai';
import type { ErrorCode } from '../../../src/errors/catalogue.ts';
import { FakeImageFetcher } from '../../../src/images/fake-image-fetcher.ts';
import { FakeReportGenerator } from '../../../src/generation/fake-report-generator.ts';
import { QUOTA_FIGURE_MAX_AGE_MS } from '../../../src/reports/stages/check-quota.ts';
import { STEP_LABELS, type StepLabel } from '../../../src/observability/step-labels.ts';
import { codeOf, IMAGE_REQUEST, principal, readable, unreadable, UseCaseHarness, type PrincipalFacts } from '../../support/unit/use-case.ts';

// Step 1 runs at the HTTP edge, before the use case.
const ALL_STEPS: StepLabel[] = STEP_LABELS.slice(1);
const upTo = (last: StepLabel): StepLabel[] => ALL_STEPS.slice(0, ALL_STEPS.indexOf(last) + 1);

interface Failure {
  code: ErrorCode;
  step: StepLabel;
  facts?: PrincipalFacts;
  arrange?: (h: UseCaseHarness) => void;
  longText?: boolean;
}

const URL = 'https://img.example/window.png';

/** Step 6 runs more than QUOTA_FIGURE_MAX_AGE_MS after step 1, and the month's usage reads as `now`. */
function staleFigure(h: UseCaseHarness, now: UseCaseHarness['usageNow']): void {
  h.usageNow = now;
  h.beforeStep = (label) => {
    if (label === '6_quota') h.clock.advance(QUOTA_FIGURE_MAX_AGE_MS + 1);
  };
}
const FAILURES: Failure[] = [
  { code: 'invalid_evidence_report_input', step: '2_validate', longText: true },
  { code: 'rate_limit_exceeded', step: '3_rate_limit', arrange: (h) => void Object.assign(h.rateLimiter, { limit: 0 }) },
  { code: 'rate_limit_unavailable', step: '3_rate_limit', arrange: (h) => void (h.rateLimiter.unavailable = true) },
  { code: 'product_not_entitled', step: '4_entitlement', facts: { entitled: readable(false) } },
  { code: 'entitlement_check_unavailable', step: '4_entitlement', facts: { entitled: unreadable } },
  { code: 'idempotency_unavailable', step: '5_idempotency', arrange: (h) => void (h.idempotency.unavailable = true) },
  { code: 'quota_access_denied', step: '6_quota', facts: { planUsage: readable(null) } },
  { code: 'quota_exceeded', step: '6_quota', facts: { planUsage: readable({ limit: 5, used: 5, usageVisible: true }) } },
  { code: 'quota_check_unavailable', step: '6_quota', facts: { planUsage: unreadable } },
  // Spec section 8: a figure of step 1 that is no longer fresh is read again at step 6.
  { code: 'quota_exceeded', step: '6_quota', arrange: (h) => staleFigure(h, { limit: 5, used: 5, usageVisible: true }) },
  { code: 'quota_access_denied', step: '6_quota', arrange: (h) => staleFigure(h, null) },
  { code: 'quota_check_unavailable', step: '6_quota', arrange: (h) => staleFigure(h, 'unavailable') },
  {
    code: 'remote_evidence_image_rejected',
    step: '7_fetch_images',
    arrange: (h) => void (h.imageFetcher = new FakeImageFetcher({ failures: { [URL]: { kind: 'rejected' } } })),
  },
  {
    code: 'remote_evidence_image_unavailable',
    step: '7_fetch_images',
    arrange: (h) => void (h.imageFetcher = new FakeImageFetcher({ failures: { [URL]: { kind: 'unavailable' } } })),
  },
  { code: 'invalid_generated_report', step: '8_generate', arrange: (h) => void (h.generator = new FakeReportGenerator({ candidate: { title: 'x' } })) },
  { code: 'report_generation_failed', step: '8_generate', arrange: (h) => void (h.generator = new FakeReportGenerator({ error: { kind: 'failed' } })) },
  {
    code: 'report_generation_unavailable',
    step: '8_generate',
    arrange: (h) => void (h.generator = new FakeReportGenerator({ error: { kind: 'unavailable' } })),
  },
  { code: 'evidence_report_write_failed', step: '9_10_persist', arrange: (h) => void (h.reports.failWith = 'report_not_written') },
  { code: 'evidence_report_write_failed', step: '9_10_persist', arrange: (h) => void (h.reports.failWith = 'unavailable') },
  { code: 'usage_recording_failed', step: '9_10_persist', arrange: (h) => void (h.reports.failWith = 'usage_not_recorded') },
  { code: 'idempotency_unavailable', step: '9_10_persist', arrange: (h) => void (h.reports.failWith = 'claim_lost') },
];

describe('create report, unit tier: the steps in order, each code from its step (spec section 1, section 7)', () => {
  it('a report runs steps 2 to 11 in the specification order and stores one report with its unit (R15)', async () => {
    const h = new UseCaseHarness();
    const outcome = await h.create({ request: IMAGE_REQUEST, idempotencyKey: 'k1' });
    expect(h.steps).to.deep.equal(ALL_STEPS);
    expect(outcome.replayed).to.equal(false);
    expect(outcome.body.usage).to.deep.equal({ operation: 'evidence_report', units: 1 });
    expect(h.reports.records).to.have.length(1);
    expect(h.reports.records[0]).to.include({ reportId: outcome.body.id, units: 1 });
    expect(h.idempotency.inProgress(), 'the claim is completed with the report').to.equal(0);
  });

  for (const failure of FAILURES) {
    it(`${failure.code} comes from step ${failure.step}; nothing after it runs, nothing is stored, no key stays claimed (R14)`, async () => {
      const h = new UseCaseHarness();
      failure.arrange?.(h);
      const request = failure.longText
        ? { ...IMAGE_REQUEST, evidence: { ...IMAGE_REQUEST.evidence, text: 'x'.repeat(20_001) } }
        : IMAGE_REQUEST;
      const code = await codeOf(h.create({ principal: principal(failure.facts), request, idempotencyKey: 'k1' }));
      expect(code).to.equal(failure.code);
      expect(h.steps).to.deep.equal(upTo(failure.step));
      expect(h.reports.records).to.deep.equal([]);
      expect(h.idempotency.inProgress()).to.equal(0);
      const fetched = ALL_STEPS.indexOf(failure.step) >= ALL_STEPS.indexOf('7_fetch_images');
      expect(h.imageFetcher.calls.length, 'images fetched only from step 7 on').to.equal(fetched ? 1 : 0);
      const generated = ALL_STEPS.indexOf(failure.step) >= ALL_STEPS.indexOf('8_generate');
      expect(h.generator.callCount, 'generation only from step 8 on').to.equal(generated ? 1 : 0);
    });
  }
});

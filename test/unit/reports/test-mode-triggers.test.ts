// R53, unit tier: test mode on the use case's fakes. Each error trigger fails the step the
// catalogue says its code arises at, after the steps before it ran and with none after it;
// nothing is stored, no key stays claimed; a live key treats the text as evidence; test mode
// generates with the offline generator only, on a rate-limit bucket and an idempotency
// namespace of its own.
import { expect } from 'chai';
import { ERROR_CATALOGUE, ERROR_ORIGIN, isApiError } from '../../../src/errors/catalogue.ts';
import { STEP_LABELS, type StepLabel } from '../../../src/observability/step-labels.ts';
import { ERROR_TRIGGERS, triggerIn } from '../../../src/reports/test-mode/error-triggers.ts';
import { codeOf, IMAGE_REQUEST, principal, TEXT_REQUEST, UseCaseHarness } from '../../support/unit/use-case.ts';

const ALL_STEPS: StepLabel[] = STEP_LABELS.slice(1);
const upTo = (last: StepLabel): StepLabel[] => ALL_STEPS.slice(0, ALL_STEPS.indexOf(last) + 1);
const testPrincipal = principal({ mode: 'test' });
const withTrigger = (code: string) => ({ ...IMAGE_REQUEST, evidence: { ...IMAGE_REQUEST.evidence, text: `Broken window. ers_test_trigger:${code}` } });

describe('test mode, unit tier: error triggers at their steps, the offline generator, buckets and namespaces of their own (R53)', () => {
  it('every trigger fires at the step of its code in the catalogue (an unexpected error just before steps 9-10)', () => {
    for (const [code, step] of ERROR_TRIGGERS) {
      expect(step, code).to.equal(ERROR_ORIGIN[code] === 'any_step' ? '9_10_persist' : ERROR_ORIGIN[code]);
    }
  });

  it('reads the triggerable code of the earliest step in the text (the first named within one step); other names are no trigger (R53)', () => {
    expect(triggerIn('a ers_test_trigger:not_a_code b ers_test_trigger:quota_exceeded')).to.equal('quota_exceeded');
    // A request failing at steps 6 and 9-10 fails at 6, whatever the order of the names.
    expect(triggerIn('ers_test_trigger:internal_error ers_test_trigger:quota_exceeded')).to.equal('quota_exceeded');
    expect(triggerIn('ers_test_trigger:quota_exceeded ers_test_trigger:internal_error')).to.equal('quota_exceeded');
    expect(triggerIn('ers_test_trigger:evidence_report_write_failed ers_test_trigger:usage_recording_failed')).to.equal('evidence_report_write_failed');
    expect(triggerIn('ers_test_trigger:usage_recording_failed ers_test_trigger:evidence_report_write_failed')).to.equal('usage_recording_failed');
    expect(triggerIn('ers_test_trigger:missing_api_key')).to.equal(undefined);
    expect(triggerIn('ers_test_trigger:current_usage_unavailable')).to.equal(undefined);
    expect(triggerIn(undefined)).to.equal(undefined);
  });

  it('a code ends at the first character that is not a letter, digit or underscore: a longer word is no trigger, punctuation after it is (R53)', () => {
    for (const text of ['ers_test_trigger:internal_error', 'ers_test_trigger:internal_error.', 'ers_test_trigger:internal_error-x', '(ers_test_trigger:internal_error)', 'ers_test_trigger:internal_error\nmore']) {
      expect(triggerIn(text), text).to.equal('internal_error');
    }
    for (const text of ['ers_test_trigger:internal_errors', 'ers_test_trigger:internal_error_x', 'ers_test_trigger:internal_error2', 'ers_test_trigger:internal_errorX']) {
      expect(triggerIn(text), text).to.equal(undefined);
    }
  });

  for (const [code, step] of ERROR_TRIGGERS) {
    it(`ers_test_trigger:${code} fails step ${step} with ${ERROR_CATALOGUE[code].status} after the steps before it ran; nothing stored, no key claimed`, async () => {
      const h = new UseCaseHarness();
      let error: unknown;
      try {
        await h.create({ principal: testPrincipal, request: withTrigger(code), idempotencyKey: 'k1' });
      } catch (caught) {
        error = caught;
      }
      expect(isApiError(error) && error.code).to.equal(code);
      expect(h.steps).to.deep.equal(upTo(step));
      expect(h.reports.records).to.deep.equal([]);
      expect(h.idempotency.inProgress()).to.equal(0);
      expect(h.imageFetcher.calls.length, 'a trigger of step 7 or later still fetches in the steps before it').to.equal(
        ALL_STEPS.indexOf(step) > ALL_STEPS.indexOf('7_fetch_images') ? 1 : 0,
      );
      expect(h.generator.callCount, 'never the configured generator').to.equal(0);
    });
  }

  it('a live key treats the same text as ordinary evidence', async () => {
    const h = new UseCaseHarness();
    const outcome = await h.create({ request: withTrigger('report_generation_unavailable') });
    expect(outcome.body.status).to.equal('completed');
    expect(h.reports.records[0]).to.include({ mode: 'live' });
  });

  it('a test report is generated offline, deterministically, and stored in test mode', async () => {
    const h = new UseCaseHarness();
    const first = await h.create({ principal: testPrincipal, request: TEXT_REQUEST });
    const second = await h.create({ principal: testPrincipal, request: TEXT_REQUEST });
    expect(second.body.result).to.deep.equal(first.body.result);
    expect(h.generator.callCount).to.equal(0);
    expect(h.reports.records.map((r) => [r.mode, r.generator])).to.deep.equal([
      ['test', 'offline'],
      ['test', 'offline'],
    ]);
  });

  it('test and live keys of one customer have separate rate-limit buckets and idempotency namespaces', async () => {
    const h = new UseCaseHarness();
    Object.assign(h.rateLimiter, { limit: 1 });
    const live = await h.create({ idempotencyKey: 'shared' });
    const test = await h.create({ principal: testPrincipal, request: IMAGE_REQUEST, idempotencyKey: 'shared' });
    expect([live.replayed, test.replayed]).to.deep.equal([false, false]);
    expect(await codeOf(h.create({ principal: testPrincipal }))).to.equal('rate_limit_exceeded');
    expect(await codeOf(h.create())).to.equal('rate_limit_exceeded');
  });
});

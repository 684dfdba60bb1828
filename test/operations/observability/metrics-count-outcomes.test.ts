// R40: the counters and histograms move by exactly what was sent. Requests go
// through every outcome class (201, replay, each 4xx class, both 429s, the generator's 502s
// and 503 from the fake Gemini server, images accepted, rejected and unavailable from a local
// image host), and the exposition read before and after differs by exactly the expected
// counts, series by series, and nowhere else.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { StepLabel } from '../../../src/observability/step-labels.ts';
import { STEP_LABELS } from '../../../src/observability/step-labels.ts';
import { createCustomerFixture } from '../../support/database.ts';
import { unknownApiKey } from '../../support/auth-cases.ts';
import { client, send, type TestResponse } from '../../support/http-client.ts';
import { startTestService, type TestService } from '../../support/service.ts';
import { errorAnswer, startFakeGemini, textAnswer, USAGE_METADATA, type FakeGemini } from '../../support/generation/fake-gemini-server.ts';
import { DEFAULT_GEMINI_MODELS } from '../../../src/config.ts';
import { geminiEnv } from '../../support/e2e/gemini-service.ts';
import { IMAGES, startImageHost } from '../../support/e2e/image-host.ts';
import type { ImageServer } from '../../support/images/image-server.ts';
import { serviceEnv } from '../../support/reports.ts';
import { changes, scrape, seriesKey } from '../../support/observability/prometheus.ts';

const TEXT_MAX = 60;
const RATE_LIMIT = 4;
const text = (n: number) => `Water is dripping from the trap under sink ${n}.`;
const body = (n: number, images: string[] = []) => ({
  context: 'property_maintenance',
  evidence: { text: text(n), ...(images.length > 0 ? { images: images.map((url) => ({ url })) } : {}) },
});
/** Steps 1 to the one given, as the pipeline runs them. */
const through = (last: StepLabel): StepLabel[] => STEP_LABELS.slice(0, STEP_LABELS.indexOf(last) + 1);

describe('metrics count exactly what was sent, through every outcome class (R40)', function () {
  this.timeout(60_000);
  let service: TestService;
  let gemini: FakeGemini;
  let host: ImageServer;
  const expected: Record<string, number> = {};
  const add = (key: string, n = 1) => {
    expected[key] = (expected[key] ?? 0) + n;
  };

  /** Notes what one answered request must have counted. */
  function counted(res: TestResponse, status: number, code: string, operation: string, steps: StepLabel[]): void {
    expect(res.status, res.text).to.equal(status);
    if (code !== 'none') expect((res.body as { error: { code: string } }).error.code).to.equal(code);
    add(seriesKey('ers_http_requests_total', { operation, status: String(status), code }));
    add(seriesKey('ers_http_request_duration_seconds_count', { operation }));
    for (const step of steps) add(seriesKey('ers_pipeline_step_duration_seconds_count', { step }));
  }
  const generation = (outcome: string) => add(seriesKey('ers_report_generation_duration_seconds_count', { generator: 'gemini', outcome }));
  const images = (outcome: string, reason: string, n: number) => add(seriesKey('ers_image_fetches_total', { outcome, reason }), n);
  const created = () => add('ers_reports_created_total');
  // R42, R43: the service runs the default GEMINI_MODEL, a primary and a fallback.
  const [PRIMARY, FALLBACK] = DEFAULT_GEMINI_MODELS as [string, string];
  const attempt = (model: string, outcome: string) => add(seriesKey('ers_generator_attempts_total', { model, outcome }));
  /** An answer of the fake carries USAGE_METADATA: its input and output tokens (it does not think). */
  const answered = (model: string) => {
    add(seriesKey('ers_generator_tokens_total', { model, kind: 'input' }), USAGE_METADATA.promptTokenCount);
    add(seriesKey('ers_generator_tokens_total', { model, kind: 'output' }), USAGE_METADATA.candidatesTokenCount);
  };
  const generatedOk = () => {
    generation('ok');
    attempt(PRIMARY, 'ok');
    answered(PRIMARY);
  };

  before(async () => {
    gemini = await startFakeGemini();
    host = await startImageHost();
    service = await startTestService(
      await serviceEnv({
        ...geminiEnv(gemini),
        METRICS_PORT: '0',
        RATE_LIMIT_STORE: 'memory',
        RATE_LIMIT_REQUESTS: String(RATE_LIMIT),
        EVIDENCE_TEXT_MAX_CHARS: String(TEXT_MAX),
        REMOTE_IMAGE_ALLOW_CIDRS: '127.0.0.1/32',
        GENERATOR_TIMEOUT_MS: '3000',
      }),
    );
  });
  after(async () => {
    await service?.close();
    await gemini?.stop();
    await host?.close();
  });

  it('each request moves its request counter, its duration histogram and the histogram of every step it ran, and nothing else', async () => {
    const before = (await scrape(service.metricsUrl!)).samples;
    const POST = 'createEvidenceReport';

    // 201, replay, 409 and images accepted (one customer, within the rate limit of 4).
    const ok = client(service.url, (await createCustomerFixture()).apiKey);
    const key = randomUUID();
    counted(await ok.createReport(body(1), { 'Idempotency-Key': key }), 201, 'none', POST, [...STEP_LABELS]);
    generatedOk();
    created();
    const replay = await ok.createReport(body(1), { 'Idempotency-Key': key });
    expect(replay.headers['idempotent-replayed']).to.equal('true');
    counted(replay, 201, 'none', POST, through('5_idempotency'));
    counted(await ok.createReport(body(2), { 'Idempotency-Key': key }), 409, 'idempotency_conflict', POST, through('5_idempotency'));
    counted(await ok.createReport(body(3, [host.url(IMAGES.png.path), host.url(IMAGES.jpeg.path)])), 201, 'none', POST, [...STEP_LABELS]);
    images('accepted', 'none', 2);
    generatedOk();
    created();
    counted(await ok.currentUsage(), 200, 'none', 'getCurrentUsage', ['1_authenticate']);

    // The edge: 401, 400 (three codes), 422 of the application limits, 404, 405, a system route.
    const edge = await createCustomerFixture();
    const keyed = { 'x-api-key': edge.apiKey, 'content-type': 'application/json' };
    counted(await send(service.url, 'POST', '/v1/evidence/reports', { body: body(4) }), 401, 'missing_api_key', POST, ['1_authenticate']);
    counted(
      await send(service.url, 'POST', '/v1/evidence/reports', { body: body(4), headers: { 'x-api-key': unknownApiKey() } }),
      401,
      'invalid_api_key',
      POST,
      ['1_authenticate'],
    );
    counted(await send(service.url, 'POST', '/v1/evidence/reports', { raw: '{"context":', headers: keyed }), 400, 'invalid_json', POST, through('2_validate'));
    counted(await client(service.url, edge.apiKey).createReport({ context: 'nope', evidence: { text: 'x' } }), 400, 'invalid_request_payload', POST, through('2_validate'));
    counted(await client(service.url, edge.apiKey).createReport(body(5), { 'Idempotency-Key': ' ' }), 400, 'invalid_idempotency_key', POST, through('2_validate'));
    counted(
      await client(service.url, edge.apiKey).createReport({ context: 'property_maintenance', evidence: { text: 'x'.repeat(TEXT_MAX + 1) } }),
      422,
      'invalid_evidence_report_input',
      POST,
      through('2_validate'),
    );
    counted(await send(service.url, 'GET', '/v1/nowhere', { headers: keyed }), 404, 'not_found', 'other', []);
    counted(await send(service.url, 'DELETE', '/v1/usage/current', { headers: keyed }), 405, 'method_not_allowed', 'other', []);
    counted(await send(service.url, 'GET', '/healthz'), 200, 'none', 'other', []);

    // 403 product_not_entitled four times, then the fifth is over the rate limit: 429 at step 3.
    const unentitled = client(service.url, (await createCustomerFixture({ noEntitlement: true })).apiKey);
    for (let i = 0; i < RATE_LIMIT; i++) {
      counted(await unentitled.createReport(body(10 + i)), 403, 'product_not_entitled', POST, through('4_entitlement'));
    }
    counted(await unentitled.createReport(body(20)), 429, 'rate_limit_exceeded', POST, through('3_rate_limit'));

    // 403 quota_access_denied (no plan) and 429 quota_exceeded (a plan of one report): step 6.
    const noPlan = client(service.url, (await createCustomerFixture({ noPlan: true })).apiKey);
    counted(await noPlan.createReport(body(21)), 403, 'quota_access_denied', POST, through('6_quota'));
    const onlyOne = client(service.url, (await createCustomerFixture({ monthlyLimit: 1 })).apiKey);
    counted(await onlyOne.createReport(body(22)), 201, 'none', POST, [...STEP_LABELS]);
    generatedOk();
    created();
    counted(await onlyOne.createReport(body(23)), 429, 'quota_exceeded', POST, through('6_quota'));

    // Images rejected and unavailable: the failing image is counted with the boundary's reason.
    const withImages = client(service.url, (await createCustomerFixture()).apiKey);
    counted(await withImages.createReport(body(24, [host.url('/page.html')])), 422, 'remote_evidence_image_rejected', POST, through('7_fetch_images'));
    images('rejected', 'bad_content_type', 1);
    counted(await withImages.createReport(body(25, [host.url('/status-503.png')])), 503, 'remote_evidence_image_unavailable', POST, through('7_fetch_images'));
    images('unavailable', 'http_status', 1);

    // The generator's outcomes (R24): failed (a 400), invalid (not JSON), unavailable (503 from
    // the primary, then from the fallback and its one retry, R42).
    const generated = client(service.url, (await createCustomerFixture()).apiKey);
    gemini.enqueue(errorAnswer(400));
    counted(await generated.createReport(body(26)), 502, 'report_generation_failed', POST, through('8_generate'));
    generation('failed');
    attempt(PRIMARY, 'failed');
    gemini.enqueue(textAnswer('this is not JSON'));
    counted(await generated.createReport(body(27)), 502, 'invalid_generated_report', POST, through('8_generate'));
    generation('invalid');
    attempt(PRIMARY, 'invalid');
    answered(PRIMARY);
    gemini.enqueue(errorAnswer(503), errorAnswer(503), errorAnswer(503));
    counted(await generated.createReport(body(28)), 503, 'report_generation_unavailable', POST, through('8_generate'));
    generation('unavailable');
    attempt(PRIMARY, 'unavailable');
    attempt(FALLBACK, 'unavailable');
    attempt(FALLBACK, 'unavailable');

    const after = (await scrape(service.metricsUrl!)).samples;
    const counters = Object.fromEntries(
      Object.entries(changes(before, after, 'ers_')).filter(([k]) => /_total(\{|$)|_count(\{|$)/.test(k)),
    );
    expect(counters).to.deep.equal(expected);
    // Every histogram's +Inf bucket agrees with its count.
    for (const [series, count] of after) {
      const match = /^(ers_[a-z_]+)_count(\{.*\})?$/.exec(series);
      if (!match) continue;
      const labels = match[2] ? `${match[2].slice(1, -1)},` : '';
      const bucket = `${match[1]}_bucket{${labels}le="+Inf"}`.replace(/\{([^}]*)\}/, (_m, inner: string) => `{${inner.split(',').sort().join(',')}}`);
      expect(after.get(bucket), bucket).to.equal(count);
    }
    expect(after.get('ers_image_bytes_in_flight'), 'no image bytes held once every request ended').to.equal(0);
  });
});

// R53 with R40: test-mode traffic is counted apart. The fixed metrics keep exactly the labels of
// the operator interface and count live keys (ers_http_requests_total, ers_reports_created_total);
// test keys move ers_test_mode_requests_total and ers_test_mode_reports_created_total, so a
// triggered 5xx never reaches the series the alert rules read. A test-mode generation is counted
// as the offline generator's, whatever the configured one.
import { expect } from 'chai';
import { createKey } from '../../../src/admin/keys.ts';
import { createCustomerFixture, testEm } from '../../support/database.ts';
import { send } from '../../support/http-client.ts';
import { startTestService, type TestService } from '../../support/service.ts';
import { scrape, seriesKey } from '../../support/observability/prometheus.ts';

const BODY = { context: 'property_maintenance', evidence: { text: 'Loose handrail on stairwell B.' } };

describe('metrics count test-mode traffic apart from the fixed series (R53, R40)', function () {
  this.timeout(30_000);
  let service: TestService;

  before(async () => {
    service = await startTestService({ METRICS_PORT: '0' });
  });
  after(() => service?.close());

  it('a live and a test report, and a test trigger: the test ones only in the test-mode series', async () => {
    const customer = await createCustomerFixture();
    const { apiKey: testKey } = await createKey(await testEm(), { customerId: customer.customerId, mode: 'test' });
    const before = (await scrape(service.metricsUrl!)).samples;
    const post = (key: string, body: unknown) => send(service.url, 'POST', '/v1/evidence/reports', { body, headers: { 'x-api-key': key } });
    expect((await post(customer.apiKey, BODY)).status).to.equal(201);
    expect((await post(testKey, BODY)).status).to.equal(201);
    const triggered = await post(testKey, { ...BODY, evidence: { text: 'ers_test_trigger:usage_recording_failed' } });
    expect(triggered.status).to.equal(503);
    const after = (await scrape(service.metricsUrl!)).samples;
    const moved = (key: string) => (after.get(key) ?? 0) - (before.get(key) ?? 0);
    const requests = (name: string, status: string, code: string) => moved(seriesKey(name, { code, operation: 'createEvidenceReport', status }));
    expect(requests('ers_http_requests_total', '201', 'none'), 'the live 201').to.equal(1);
    expect(requests('ers_test_mode_requests_total', '201', 'none')).to.equal(1);
    expect(requests('ers_test_mode_requests_total', '503', 'usage_recording_failed')).to.equal(1);
    expect(requests('ers_http_requests_total', '503', 'usage_recording_failed'), 'the triggered 503 is not live traffic').to.equal(0);
    expect(
      [...after.keys()].filter((k) => k.startsWith('ers_http_requests_total{') && k.includes('status="503"')),
      'no live 5xx series at all',
    ).to.deep.equal([]);
    expect(moved('ers_reports_created_total'), 'live reports').to.equal(1);
    expect(moved('ers_test_mode_reports_created_total'), 'test reports').to.equal(1);
    // The three ran step 8 (the trigger fires before steps 9-10), all offline; only the live one
    // is a live figure: durations, steps, generations, attempts and tokens count live traffic.
    expect(moved(seriesKey('ers_report_generation_duration_seconds_count', { generator: 'offline', outcome: 'ok' }))).to.equal(1);
    expect(moved(seriesKey('ers_http_request_duration_seconds_count', { operation: 'createEvidenceReport' })), 'request latencies').to.equal(1);
    expect(moved(seriesKey('ers_pipeline_step_duration_seconds_count', { step: '8_generate' })), 'step latencies').to.equal(1);
    expect(moved(seriesKey('ers_generator_attempts_total', { model: 'offline', outcome: 'ok' })), 'attempts').to.equal(1);
  });
});


// R53 with R40: test-mode traffic is told apart in the metrics by the label `mode` (live or
// test) on ers_http_requests_total and ers_reports_created_total, and a test-mode generation is
// counted as the offline generator's, whatever the configured one.
import { expect } from 'chai';
import { createKey } from '../../../src/admin/keys.ts';
import { createCustomerFixture, testEm } from '../../support/database.ts';
import { send } from '../../support/http-client.ts';
import { startTestService, type TestService } from '../../support/service.ts';
import { scrape, seriesKey } from '../../support/observability/prometheus.ts';

const BODY = { context: 'property_maintenance', evidence: { text: 'Loose handrail on stairwell B.' } };

describe('metrics tell test-mode traffic apart with the label mode (R53, R40)', function () {
  this.timeout(30_000);
  let service: TestService;

  before(async () => {
    service = await startTestService({ METRICS_PORT: '0' });
  });
  after(() => service?.close());

  it('a live and a test report, and a test trigger, each counted under their own mode', async () => {
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
    const requests = (mode: string, status: string, code: string) =>
      moved(seriesKey('ers_http_requests_total', { code, mode, operation: 'createEvidenceReport', status }));
    expect(requests('live', '201', 'none')).to.equal(1);
    expect(requests('test', '201', 'none')).to.equal(1);
    expect(requests('test', '503', 'usage_recording_failed')).to.equal(1);
    expect(moved(seriesKey('ers_reports_created_total', { mode: 'live' }))).to.equal(1);
    expect(moved(seriesKey('ers_reports_created_total', { mode: 'test' }))).to.equal(1);
    // The three ran step 8 (the trigger fires before steps 9-10), all offline.
    expect(moved(seriesKey('ers_report_generation_duration_seconds_count', { generator: 'offline', outcome: 'ok' }))).to.equal(3);
  });
});

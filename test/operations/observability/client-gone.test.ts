// A client that goes away before its answer (it closed the connection mid-body, or its request
// timed out) is not a failure of the service: the request is logged and counted as 499 (the
// "client closed request" status that nginx made customary) with no error code, never as a 500
// internal_error that the 5xx alert rules would read as an outage (R40); nor is the generation it
// cut short counted as the generator unavailable, which the generator alerts would read so.
import { once } from 'node:events';
import { connect } from 'node:net';
import { expect } from 'chai';
import { createCustomerFixture } from '../../support/database.ts';
import { startTestService, type TestService } from '../../support/service.ts';
import { scrape, seriesKey } from '../../support/observability/prometheus.ts';
import { waitFor } from '../../support/reports.ts';

const BODY = { context: 'property_maintenance', evidence: { text: 'Loose handrail on stairwell B.' } };

describe('a client gone before its answer is counted as 499, not as a 500 (R40)', function () {
  this.timeout(30_000);
  let service: TestService;

  before(async () => {
    // A generation that takes 3 s, so that a client can leave while it runs.
    service = await startTestService({ METRICS_PORT: '0', OFFLINE_GENERATOR_DELAY_MS: '3000' });
  });
  after(() => service?.close());

  it('a POST whose connection closes mid-body: status 499, code none; no 5xx series', async () => {
    const customer = await createCustomerFixture();
    const socket = connect(Number(new URL(service.url).port), '127.0.0.1');
    await once(socket, 'connect');
    socket.write(
      `POST /v1/evidence/reports HTTP/1.1\r\nHost: localhost\r\nx-api-key: ${customer.apiKey}\r\ncontent-type: application/json\r\ncontent-length: 200\r\n\r\n{"context":`,
    );
    // Authenticated and reading the body (the key's first use is recorded at step 1); then gone.
    await new Promise((resolve) => setTimeout(resolve, 200));
    socket.destroy();
    const counted = async () => [...(await scrape(service.metricsUrl!)).samples.keys()].filter((k) => k.startsWith('ers_http_requests_total{'));
    await waitFor(async () => (await counted()).some((k) => k.includes('status="499"')));
    const series = await counted();
    expect(series).to.include('ers_http_requests_total{code="none",operation="createEvidenceReport",status="499"}');
    expect(series.filter((k) => /status="5\d\d"/.test(k)), 'no 5xx counted').to.deep.equal([]);
  });

  it('a request whose client leaves during generation is 499, and the generator is not counted unavailable', async () => {
    const customer = await createCustomerFixture();
    const before = (await scrape(service.metricsUrl!)).samples;
    const leaving = new AbortController();
    const sent = fetch(new URL('/v1/evidence/reports', service.url), {
      method: 'POST',
      headers: { 'x-api-key': customer.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify(BODY),
      signal: leaving.signal,
    }).catch(() => undefined);
    const moved = async (key: string) => ((await scrape(service.metricsUrl!)).samples.get(key) ?? 0) - (before.get(key) ?? 0);
    const gone = seriesKey('ers_http_requests_total', { code: 'none', operation: 'createEvidenceReport', status: '499' });
    // Generating (its key's use recorded and a second gone by), then the client leaves.
    await new Promise((resolve) => setTimeout(resolve, 800));
    leaving.abort();
    await sent;
    for (let i = 0; i < 100 && (await moved(gone)) < 1; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await moved(gone), 'counted as 499').to.equal(1);
    expect(await moved(seriesKey('ers_report_generation_duration_seconds_count', { generator: 'offline', outcome: 'unavailable' })), 'no unavailable generation').to.equal(0);
    expect(await moved(seriesKey('ers_generator_attempts_total', { model: 'offline', outcome: 'unavailable' })), 'no unavailable attempt').to.equal(0);
  });
});

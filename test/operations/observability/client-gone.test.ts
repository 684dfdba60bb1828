// A client that goes away before its answer (it closed the connection mid-body, or its request
// timed out) is not a failure of the service: the request is logged and counted as 499 (the
// "client closed request" status that nginx made customary) with no error code, never as a 500
// internal_error that the 5xx alert rules would read as an outage (R40).
import { once } from 'node:events';
import { connect } from 'node:net';
import { expect } from 'chai';
import { createCustomerFixture } from '../../support/database.ts';
import { startTestService, type TestService } from '../../support/service.ts';
import { scrape } from '../../support/observability/prometheus.ts';
import { waitFor } from '../../support/reports.ts';

describe('a client gone before its answer is counted as 499, not as a 500 (R40)', function () {
  this.timeout(30_000);
  let service: TestService;

  before(async () => {
    service = await startTestService({ METRICS_PORT: '0' });
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
});

// R40: metrics are served on a listener of their own, METRICS_HOST:METRICS_PORT, and only when
// METRICS_PORT is set; never on the API port, where /metrics stays the contract's 404.
import { expect } from 'chai';
import { send } from '../../support/http-client.ts';
import { startTestService, type TestService } from '../../support/service.ts';
import { expectApiError } from '../../support/expect-api-error.ts';
import { scrape } from '../../support/observability/prometheus.ts';

describe('the metrics listener (R40)', () => {
  let services: TestService[] = [];
  const start = async (env: Record<string, string>) => {
    const service = await startTestService(env);
    services.push(service);
    return service;
  };
  afterEach(async () => {
    await Promise.all(services.map((s) => s.close()));
    services = [];
  });

  it('without METRICS_PORT there is no metrics listener, and GET /metrics on the API port is 404 not_found', async () => {
    const service = await start({});
    expect(service.metricsUrl).to.equal(undefined);
    expectApiError(await send(service.url, 'GET', '/metrics'), 'not_found');
  });

  it('with METRICS_PORT: GET /metrics on METRICS_HOST:METRICS_PORT answers the text format; the API port still says 404', async () => {
    const service = await start({ METRICS_PORT: '0', METRICS_HOST: '127.0.0.1' });
    expect(service.metricsUrl).to.match(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    expect(new URL(service.metricsUrl!).port).not.to.equal(new URL(service.url).port);
    const scraped = await scrape(service.metricsUrl!);
    expect(scraped.status).to.equal(200);
    expect(scraped.contentType).to.match(/^text\/plain; version=0\.0\.4/);
    expect(scraped.text).to.include('# TYPE ers_http_requests_total counter');
    expectApiError(await send(service.url, 'GET', '/metrics'), 'not_found');
  });

  it('the metrics listener serves /metrics only: another path is 404 and another method 405', async () => {
    const service = await start({ METRICS_PORT: '0' });
    const base = new URL(service.metricsUrl!);
    expect((await fetch(new URL('/', base))).status).to.equal(404);
    expect((await fetch(new URL('/v1/usage/current', base))).status).to.equal(404);
    expect((await fetch(base, { method: 'POST', body: 'x' })).status).to.equal(405);
    const head = await fetch(base, { method: 'HEAD' });
    expect(head.status).to.equal(200);
  });

  it('a scrape reads the database pool and the image byte budget at scrape time (gauges present, consistent)', async () => {
    const service = await start({ METRICS_PORT: '0', DB_POOL_SIZE: '7' });
    const { samples } = await scrape(service.metricsUrl!);
    const idle = samples.get('ers_db_pool_connections{state="idle"}');
    const busy = samples.get('ers_db_pool_connections{state="busy"}');
    expect(idle, 'idle').to.be.a('number');
    expect(busy, 'busy').to.be.a('number');
    expect(samples.get('ers_db_pool_connections{state="waiting"}')).to.equal(0);
    expect(samples.get('ers_db_pool_max_connections')).to.equal(7);
    expect(idle! + busy!).to.be.at.most(samples.get('ers_db_pool_max_connections')!);
    expect(samples.get('ers_image_bytes_in_flight')).to.equal(0);
  });

  it('closing the service closes the metrics listener', async () => {
    const service = await start({ METRICS_PORT: '0' });
    const url = service.metricsUrl!;
    await service.close();
    services = [];
    const refused = await fetch(url, { signal: AbortSignal.timeout(2000) }).then(
      () => false,
      () => true,
    );
    expect(refused).to.equal(true);
  });
});

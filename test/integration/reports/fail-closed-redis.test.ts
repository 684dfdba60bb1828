// Fail closed on the Redis rate-limit store (ruling R20): with RATE_LIMIT_STORE=redis and Redis
// behind a TCP proxy that is cut, report creation is 503 rate_limit_unavailable (never 500, never
// a request let through unlimited) and leaves nothing; reading usage does not need the store;
// when the proxy passes again the service recovers without a restart.
import { expect } from 'chai';
import { FakeReportGenerator } from '../../../src/generation/fake-report-generator.ts';
import { startTcpProxy, type TcpProxy } from '../../support/tcp-proxy.ts';
import { useService } from '../../support/use-service.ts';
import { bodyNumber, customerTotals } from '../../support/reports.ts';
import { expectApiError } from '../../support/expect-api-error.ts';

describe('fail closed: the Redis rate-limit store behind a TCP proxy that is cut (R20)', () => {
  const generator = new FakeReportGenerator();
  let proxy: TcpProxy;

  before(async () => {
    proxy = await startTcpProxy('127.0.0.1', 6379);
  });
  const app = useService(() => ({ RATE_LIMIT_STORE: 'redis', REDIS_URL: `redis://127.0.0.1:${proxy.port}`, RATE_LIMIT_REQUESTS: '100' }), { generator });
  after(async () => {
    await proxy?.close();
  });

  it('cut: 503 rate_limit_unavailable, no generation, nothing stored; GET usage still 200; restored: 201', async () => {
    expect((await app.client.create(bodyNumber(1))).status).to.equal(201);
    proxy.cut();
    const calls = generator.callCount;
    for (let i = 0; i < 3; i++) {
      expectApiError(await app.client.create(bodyNumber(2), { headers: { 'idempotency-key': 'redis-cut' } }), 'rate_limit_unavailable');
    }
    expect(generator.callCount).to.equal(calls);
    expect(await customerTotals(app.client.customerId)).to.deep.equal({ reports: 1, units: 1, claims: 0 });
    expect((await app.client.usage()).status, 'reading usage needs no rate-limit store').to.equal(200);

    proxy.restore();
    // The client reconnects on its own schedule: until then each answer is still the 503.
    const deadline = Date.now() + 15_000;
    let res = await app.client.create(bodyNumber(2), { headers: { 'idempotency-key': 'redis-cut' } });
    while (res.status !== 201 && Date.now() < deadline) {
      expectApiError(res, 'rate_limit_unavailable');
      await new Promise((resolve) => setTimeout(resolve, 100));
      res = await app.client.create(bodyNumber(2), { headers: { 'idempotency-key': 'redis-cut' } });
    }
    expect(res.status, 'recovered once Redis is reachable again').to.equal(201);
  });
});

describe('a partition between the service and the Redis rate-limit store is bounded and recovered from (R33)', function () {
  this.timeout(60_000);
  let proxy: TcpProxy;
  const CONNECT_MS = 800;
  const STATEMENT_MS = 1_200;

  before(async () => {
    proxy = await startTcpProxy('127.0.0.1', 6379);
  });
  const app = useService(
    () => ({
      RATE_LIMIT_STORE: 'redis',
      REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
      RATE_LIMIT_REQUESTS: '1000',
      DB_CONNECT_TIMEOUT_MS: String(CONNECT_MS),
      DB_STATEMENT_TIMEOUT_MS: String(STATEMENT_MS),
    }),
    { generator: new FakeReportGenerator() },
  );
  after(async () => {
    await proxy?.close();
  });

  it('blackholed: 503 rate_limit_unavailable within connect + statement + 1 s, nothing stored; passing again: 201 within 15 s', async () => {
    expect((await app.client.create(bodyNumber(1))).status).to.equal(201);
    proxy.blackhole();
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      expectApiError(await app.client.create(bodyNumber(2), { headers: { 'idempotency-key': 'redis-partition' } }), 'rate_limit_unavailable');
      expect(performance.now() - started).to.be.below(CONNECT_MS + STATEMENT_MS + 1_000);
    }
    expect(await customerTotals(app.client.customerId)).to.deep.equal({ reports: 1, units: 1, claims: 0 });
    proxy.restore();
    const restored = performance.now();
    let res = await app.client.create(bodyNumber(2), { headers: { 'idempotency-key': 'redis-partition' } });
    while (res.status !== 201 && performance.now() - restored < 15_000) {
      expectApiError(res, 'rate_limit_unavailable');
      await new Promise((resolve) => setTimeout(resolve, 100));
      res = await app.client.create(bodyNumber(2), { headers: { 'idempotency-key': 'redis-partition' } });
    }
    expect(res.status, 'recovered within 15 s once Redis answers again').to.equal(201);
  });
});

// The Redis rate-limit store (ruling R20) right after start: the service listens before its
// Redis client has connected. A request that arrives meanwhile waits for the first connection
// (at most the store's timeout) instead of getting 503 rate_limit_unavailable from a Redis that
// is healthy; without that wait, the first requests after a start under load would fail that way.
import { expect } from 'chai';
import { FakeReportGenerator } from '../../../src/generation/fake-report-generator.ts';
import { createCustomerFixture } from '../../support/database.ts';
import { startTcpProxy, type TcpProxy } from '../../support/tcp-proxy.ts';
import { startTestService, type TestService } from '../../support/service.ts';
import { bodyNumber, caller, Ledger, serviceEnv } from '../../support/reports.ts';

describe('the Redis rate-limit store while its first connection is being made (R20)', () => {
  const ledger = new Ledger();
  let proxy: TcpProxy;
  let service: TestService;

  before(async () => {
    proxy = await startTcpProxy('127.0.0.1', 6379);
  });
  after(async () => {
    await service?.close();
    await proxy?.close();
    await ledger.verify();
  });

  it('a request sent before Redis is reachable is served once the first connection is made: 201, not 503', async () => {
    // Redis refuses connections as the service starts, and is reachable again 300 ms later.
    proxy.cut();
    const env = { RATE_LIMIT_STORE: 'redis', REDIS_URL: `redis://127.0.0.1:${proxy.port}` };
    service = await startTestService(await serviceEnv(env), { generator: new FakeReportGenerator() });
    const client = caller(service.url, await createCustomerFixture(), ledger);
    setTimeout(() => proxy.restore(), 300);
    const res = await client.create(bodyNumber(1));
    expect(res.status, res.text).to.equal(201);
  });
});

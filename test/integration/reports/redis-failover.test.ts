// R33 for the Redis rate-limit store after a failover: the endpoint (here a TCP proxy, in a cloud
// a DNS name) moves to the new primary while the service's connection to the old one stays open,
// and the old primary becomes a replica, where every write is refused with READONLY. The service
// must reconnect, to the new primary, without a restart: within R33's 15 s, and fail closed until
// then (503 rate_limit_unavailable, nothing stored).
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { FakeReportGenerator } from '../../../src/generation/fake-report-generator.ts';
import { startPrivateRedis, type PrivateRedis } from '../../support/private-redis.ts';
import { startTcpProxy, type TcpProxy } from '../../support/tcp-proxy.ts';
import { useService } from '../../support/use-service.ts';
import { bodyNumber, customerTotals } from '../../support/reports.ts';
import { expectApiError } from '../../support/expect-api-error.ts';

describe('the Redis rate-limit store after a failover behind one endpoint (R33)', function () {
  this.timeout(60_000);
  const generator = new FakeReportGenerator();
  let first: PrivateRedis;
  let second: PrivateRedis;
  let endpoint: TcpProxy;

  before(async () => {
    [first, second] = await Promise.all([startPrivateRedis(), startPrivateRedis()]);
    endpoint = await startTcpProxy('127.0.0.1', first.port);
  });
  const app = useService(() => ({ RATE_LIMIT_STORE: 'redis', REDIS_URL: `redis://127.0.0.1:${endpoint.port}`, RATE_LIMIT_REQUESTS: '100' }), { generator });
  after(async () => {
    await endpoint?.close();
    await Promise.all([first?.stop(), second?.stop()]);
  });

  it('the old primary turned replica answers READONLY: the service reconnects to the new one, 201 again without a restart', async () => {
    expect((await app.client.create(bodyNumber(1))).status).to.equal(201);
    // The failover: the endpoint leads to the second server, and the first follows it.
    endpoint.retarget('127.0.0.1', second.port);
    const admin = new Redis({ port: first.port, host: '127.0.0.1', lazyConnect: true });
    try {
      await admin.connect();
      await admin.call('REPLICAOF', '127.0.0.1', String(second.port));
      expect(await admin.call('ROLE').then((role) => (role as unknown[])[0])).to.equal('slave');
    } finally {
      admin.disconnect();
    }
    const deadline = Date.now() + 15_000;
    let res = await app.client.create(bodyNumber(2));
    let refused = 0;
    while (res.status !== 201 && Date.now() < deadline) {
      expectApiError(res, 'rate_limit_unavailable');
      refused += 1;
      await new Promise((resolve) => setTimeout(resolve, 200));
      res = await app.client.create(bodyNumber(2));
    }
    expect(res.status, `still ${res.status} after ${refused} refusals`).to.equal(201);
    expect(await customerTotals(app.client.customerId)).to.deep.equal({ reports: 2, units: 2, claims: 0 });
  });
});

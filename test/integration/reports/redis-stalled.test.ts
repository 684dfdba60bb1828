// R20, R33 with a Redis that stalls (SIGSTOP: a swapping or frozen server reads nothing, then runs
// what it had been sent once it resumes). Requests during the stall fail closed with 503
// rate_limit_unavailable within the bound; they were not served, so they do not use up the
// customer's window: once Redis answers again, the customer has the window it had, less the
// requests that were served (docs/operations.md: a store failure errs toward a few extra
// requests in a window, never fewer). Without that, a stall of a few seconds under traffic
// locks a customer out for up to a whole window after Redis is back.
import { expect } from 'chai';
import { FakeReportGenerator } from '../../../src/generation/fake-report-generator.ts';
import { startPrivateRedis, type PrivateRedis } from '../../support/private-redis.ts';
import { useService } from '../../support/use-service.ts';
import { bodyNumber } from '../../support/reports.ts';
import { expectApiError } from '../../support/expect-api-error.ts';

describe('a stalled Redis rate-limit store: the refused requests do not use up the window (R20, R33)', function () {
  this.timeout(60_000);
  const LIMIT = 6;
  const STATEMENT_MS = 800;
  let redis: PrivateRedis;

  before(async () => {
    redis = await startPrivateRedis();
  });
  const app = useService(
    () => ({
      RATE_LIMIT_STORE: 'redis',
      REDIS_URL: `redis://127.0.0.1:${redis.port}`,
      RATE_LIMIT_REQUESTS: String(LIMIT),
      RATE_LIMIT_WINDOW_SECONDS: '3600',
      DB_CONNECT_TIMEOUT_MS: '800',
      DB_STATEMENT_TIMEOUT_MS: String(STATEMENT_MS),
    }),
    { generator: new FakeReportGenerator() },
  );
  after(async () => {
    redis?.resume();
    await redis?.stop();
  });

  it(`four requests during a stall are 503; after it the customer still has ${LIMIT} - 2 served = ${LIMIT - 2} more, not fewer`, async () => {
    let n = 0;
    const create = () => app.client.create(bodyNumber((n += 1)));
    expect((await create()).status, 'served before the stall').to.equal(201);

    redis.pause();
    // Two at once (one connection's commands in flight together), then two more.
    for (const burst of [2, 2]) {
      const answers = await Promise.all(Array.from({ length: burst }, () => create()));
      for (const answer of answers) expectApiError(answer, 'rate_limit_unavailable');
    }
    redis.resume();

    const resumed = performance.now();
    let res = await create();
    while (res.status !== 201 && performance.now() - resumed < 15_000) {
      expectApiError(res, 'rate_limit_unavailable');
      await new Promise((resolve) => setTimeout(resolve, 100));
      res = await create();
    }
    expect(res.status, 'served again within 15 s of Redis answering (R33)').to.equal(201);
    // Let the stalled server's own copies of the refused commands, and the points given back, land.
    await new Promise((resolve) => setTimeout(resolve, 1_000));

    const after: number[] = [];
    for (let i = 0; i < LIMIT; i++) after.push((await create()).status);
    // Two served so far: LIMIT - 2 more are 201, then 429.
    expect(after).to.deep.equal([...Array.from({ length: LIMIT - 2 }, () => 201), 429, 429]);
  });
});

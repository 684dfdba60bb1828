// R51: /readyz asks the database at most once a second however many callers ask it, and never
// waits longer than 2 s. Counted on the wire: the service talks to the test database through a
// proxy that reads the PostgreSQL protocol and counts every `select 1` (the readiness probe).
import { expect } from 'chai';
import { useCountedService } from '../../support/counted-service.ts';
import { send } from '../../support/http-client.ts';

describe('/readyz asks the database at most once a second, single-flight (R51)', () => {
  const counted = useCountedService();
  const { app } = counted;

  const probes = () => counted.counter.take().byName['select 1'] ?? 0;

  async function readyz(): Promise<number> {
    const started = performance.now();
    const response = await send(app.service.url, 'GET', '/readyz');
    expect(response.status).to.equal(200);
    expect(response.body).to.deep.equal({ status: 'ready' });
    return performance.now() - started;
  }

  it('300 concurrent callers: all 200 within 2 s, from at most one probe per second begun', async () => {
    probes();
    const started = performance.now();
    const waits = await Promise.all(Array.from({ length: 300 }, () => readyz()));
    const seconds = (performance.now() - started) / 1000;
    expect(Math.max(...waits), 'the longest wait').to.be.below(2_000);
    const count = probes();
    expect(count, `probes in ${seconds.toFixed(2)} s`).to.be.at.least(1);
    expect(count, `probes in ${seconds.toFixed(2)} s`).to.be.at.most(Math.floor(seconds) + 1);
  });

  it('callers spread over 3 s (one every 50 ms): at most one probe per second, every answer within 2 s', async () => {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    probes();
    const started = performance.now();
    const pending: Promise<number>[] = [];
    for (let i = 0; i < 60; i += 1) {
      pending.push(readyz());
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const waits = await Promise.all(pending);
    const seconds = (performance.now() - started) / 1000;
    expect(Math.max(...waits), 'the longest wait').to.be.below(2_000);
    const count = probes();
    expect(count, `probes in ${seconds.toFixed(2)} s`).to.be.at.least(2);
    expect(count, `probes in ${seconds.toFixed(2)} s`).to.be.at.most(Math.floor(seconds) + 1);
  });
});

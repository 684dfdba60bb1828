// Ruling R36, measured as an operator meets it: 1,000 keyed POSTs through the real
// service leave 1,000 idempotency records. Once their retention (and the rate-limit
// window) has passed, one sweep leaves no idempotency record and no rate-limit counter, and
// takes nothing else: the reports and their usage stay. On a database of its own, so every row
// can be counted, on the PostgreSQL server even when the suite runs embedded (1,000 POSTs take
// PGlite 40 s; expiry-sweep.test.ts covers the sweep on the embedded database).
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ExpirySweeper } from '../../src/maintenance/expiry-sweeper.ts';
import { FixedClock } from '../../src/shared/clock.ts';
import { createCustomerFixture, withServerDatabase } from '../support/database.ts';
import { client } from '../support/http-client.ts';
import { startTestService } from '../support/service.ts';
import { bodyNumber, serviceEnv } from '../support/reports.ts';

const POSTS = 1_000;
const CONCURRENCY = 20;
const RETENTION_HOURS = 1;

async function rows(em: EntityManager): Promise<Record<string, number>> {
  const tables = ['idempotency_record', 'rate_limit_counter', 'evidence_report', 'usage_record'];
  const found = await em.execute<{ t: string; n: string }[]>(tables.map((t) => `select '${t}' as t, count(*) as n from ${t}`).join(' union all '));
  return Object.fromEntries(found.map((row) => [row.t, Number(row.n)]));
}

describe('the sweep after 1,000 keyed POSTs (R36)', function () {
  this.timeout(180_000);

  it(`${POSTS} keyed POSTs leave ${POSTS} idempotency records; after the retention one sweep leaves none, and no rate-limit counter, and keeps every report and unit`, async () => {
    await withServerDatabase(async (url) => {
      // 20 at once of one customer: its in-flight limit (R52) is lifted like its rate limit.
      const env = {
        DATABASE_URL: url,
        IDEMPOTENCY_RETENTION_HOURS: String(RETENTION_HOURS),
        RATE_LIMIT_REQUESTS: '100000',
        RATE_LIMIT_WINDOW_SECONDS: '1',
        MAX_IN_FLIGHT_PER_CUSTOMER: '0',
      };
      const service = await startTestService(await serviceEnv(env));
      try {
        const em = () => service.database.orm.em.fork();
        const { apiKey } = await createCustomerFixture({ monthlyLimit: 100_000 }, em());
        const api = client(service.url, apiKey);
        let next = 0;
        const statuses: number[] = [];
        await Promise.all(
          Array.from({ length: CONCURRENCY }, async () => {
            for (let i = next++; i < POSTS; i = next++) statuses.push((await api.createReport(bodyNumber(i), { 'Idempotency-Key': randomUUID() })).status);
          }),
        );
        expect(statuses.filter((status) => status === 201)).to.have.length(POSTS);
        expect(await rows(em())).to.deep.include({ idempotency_record: POSTS, evidence_report: POSTS, usage_record: POSTS });

        // The rate-limit window (1 s, on the process clock) passes; the sweeper's clock is past the retention.
        await sleep(1_100);
        const later = new Date(Date.now() + RETENTION_HOURS * 3_600_000 + 60_000);
        const sweeper = new ExpirySweeper({
          pool: await service.database.orm.em.getConnection().getNativeClient(),
          clock: new FixedClock(later),
          intervalMs: 300_000,
        });
        const result = await sweeper.sweepOnce();
        expect(result).to.deep.equal({ idempotencyRecords: POSTS, rateLimitCounters: 1 });
        expect(await rows(em())).to.deep.equal({ idempotency_record: 0, rate_limit_counter: 0, evidence_report: POSTS, usage_record: POSTS });
      } finally {
        await service.close();
      }
    });
  });
});

// Spec 4.2 and 5.7: when usage cannot be read safely the answer is a 503, never `used: 0`.
// A database that does not answer fails authentication first (503
// api_key_authentication_unavailable, never 401); a database that authenticates but cannot read
// usage gives 503 current_usage_unavailable. Both recover when the database does.
import { expect } from 'chai';
import type { MikroORM } from '@mikro-orm/postgresql';
import { applyMigrations } from '../../../src/db/migrator.ts';
import { FixedClock } from '../../../src/shared/clock.ts';
import { createCustomerFixture, openOrm, proxyToTestDatabase, testDatabaseUrl, withEmptyDatabase } from '../../support/database.ts';
import { expectApiError } from '../../support/expect-api-error.ts';
import { insertUsageRecord } from '../../support/footprint.ts';
import { client } from '../../support/http-client.ts';
import { startTestService, type TestService } from '../../support/service.ts';
import { viaProxy } from '../../support/tcp-proxy.ts';

describe('GET /v1/usage/current fails closed (spec 4.2, 5.7)', () => {
  it('with the database unreachable: 503 api_key_authentication_unavailable, never 401 or used 0; recovers after (spec 5.7)', async () => {
    const customer = await createCustomerFixture();
    await insertUsageRecord(customer.customerId, '2026-03-10T08:00:00.000Z', 3);
    const proxy = await proxyToTestDatabase();
    const clock = new FixedClock('2026-03-20T00:00:00.000Z');
    const service = await startTestService({ DATABASE_URL: viaProxy(testDatabaseUrl(), proxy) }, { clock });
    try {
      const api = client(service.url, customer.apiKey);
      expect((await api.currentUsage()).status).to.equal(200);
      proxy.cut();
      for (let i = 0; i < 3; i += 1) expectApiError(await api.currentUsage(), 'api_key_authentication_unavailable');
      proxy.restore();
      const recovered = await api.currentUsage<{ usage: { used: number }[] }>();
      expect(recovered.status).to.equal(200);
      expect(recovered.body.usage[0]?.used).to.equal(3);
    } finally {
      proxy.restore();
      await service.close();
      await proxy.close();
    }
  });

  it('with authentication working but the usage read failing: 503 current_usage_unavailable, never used 0 (spec 4.2)', async function () {
    this.timeout(60_000); // a new embedded database takes seconds to create
    // A database of its own, so that breaking the usage table touches no other test.
    await withEmptyDatabase(async (url) => {
      let orm: MikroORM | undefined;
      let service: TestService | undefined;
      try {
        orm = await openOrm(url);
        await applyMigrations(orm);
        const customer = await createCustomerFixture({}, orm.em.fork());
        service = await startTestService({ DATABASE_URL: url });
        const api = client(service.url, customer.apiKey);
        expect((await api.currentUsage()).status).to.equal(200);
        await orm.em.fork().execute('alter table usage_counter rename to usage_counter_gone');
        for (let i = 0; i < 3; i += 1) expectApiError(await api.currentUsage(), 'current_usage_unavailable');
        await orm.em.fork().execute('alter table usage_counter_gone rename to usage_counter');
        expect((await api.currentUsage()).status).to.equal(200);
      } finally {
        await service?.close();
        await orm?.close(true);
      }
    });
  });
});

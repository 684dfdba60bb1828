// Ruling R32: a key's lastUsedAt is recorded on successful authentication, at most once a
// minute per key, outside the request's critical path. Ruling R26: nothing but the hash and
// the display prefix of a key is stored.
import { expect } from 'chai';
import { FixedClock } from '../../../src/shared/clock.ts';
import { createCustomerFixture, testEm } from '../../support/database.ts';
import { client } from '../../support/http-client.ts';
import { useService } from '../../support/use-service.ts';

async function lastUsedAt(apiKeyId: string): Promise<string | null> {
  const [row] = await (await testEm()).execute<{ last_used_at: string | null }[]>(
    `select to_char(last_used_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as last_used_at from api_key where id = ?`,
    [apiKeyId],
  );
  return row?.last_used_at ?? null;
}

/** The write is not awaited by the request (R32): poll until it lands or the bound passes. */
async function eventually(read: () => Promise<string | null>, expected: string): Promise<string | null> {
  const until = Date.now() + 5_000;
  let value = await read();
  while (value !== expected && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    value = await read();
  }
  return value;
}

describe('lastUsedAt of an API key (R32)', () => {
  const clock = new FixedClock('2026-11-21T10:00:00.000Z');
  const app = useService({}, { clock });
  // A second instance on the same database, with a clock of its own: its process has not seen the
  // key, so only the database's own guard keeps the write to once a minute per key.
  const otherClock = new FixedClock('2026-11-21T10:00:00.000Z');
  const other = useService({}, { clock: otherClock });

  it('at most once a minute per key across instances: the database keeps it, not only each process (R32)', async () => {
    const customer = await createCustomerFixture();
    clock.set('2026-11-21T10:00:00.000Z');
    expect((await client(app.service.url, customer.apiKey).currentUsage()).status).to.equal(200);
    expect(await eventually(() => lastUsedAt(customer.apiKeyId), '2026-11-21T10:00:00.000Z')).to.equal('2026-11-21T10:00:00.000Z');

    otherClock.set('2026-11-21T10:00:30.000Z');
    expect((await client(other.service.url, customer.apiKey).currentUsage()).status).to.equal(200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await lastUsedAt(customer.apiKeyId), 'within the minute, on the other instance').to.equal('2026-11-21T10:00:00.000Z');

    // A minute after the write, it is taken again (here from the first instance).
    clock.set('2026-11-21T10:01:01.000Z');
    expect((await client(app.service.url, customer.apiKey).currentUsage()).status).to.equal(200);
    expect(await eventually(() => lastUsedAt(customer.apiKeyId), '2026-11-21T10:01:01.000Z')).to.equal('2026-11-21T10:01:01.000Z');
  });

  it('is set on successful authentication, not again within a minute, and again after it (R32)', async () => {
    const customer = await createCustomerFixture();
    const api = client(app.service.url, customer.apiKey);
    expect(await lastUsedAt(customer.apiKeyId), 'never used').to.equal(null);

    clock.set('2026-11-21T10:00:00.000Z');
    expect((await api.currentUsage()).status).to.equal(200);
    expect(await eventually(() => lastUsedAt(customer.apiKeyId), '2026-11-21T10:00:00.000Z')).to.equal('2026-11-21T10:00:00.000Z');

    clock.set('2026-11-21T10:00:59.000Z');
    expect((await api.currentUsage()).status).to.equal(200);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await lastUsedAt(customer.apiKeyId), 'within the minute').to.equal('2026-11-21T10:00:00.000Z');

    clock.set('2026-11-21T10:01:01.000Z');
    expect((await api.currentUsage()).status).to.equal(200);
    expect(await eventually(() => lastUsedAt(customer.apiKeyId), '2026-11-21T10:01:01.000Z')).to.equal('2026-11-21T10:01:01.000Z');
  });

  it('is not set by a refused key (R32: on successful authentication only)', async () => {
    const customer = await createCustomerFixture();
    await (await testEm()).execute(`update api_key set status = 'revoked' where id = ?`, [customer.apiKeyId]);
    expect((await client(app.service.url, customer.apiKey).currentUsage()).status).to.equal(401);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await lastUsedAt(customer.apiKeyId)).to.equal(null);
  });

  it('stores only the SHA-256 and the display prefix of the key (R26)', async () => {
    const customer = await createCustomerFixture();
    const [row] = await (await testEm()).execute<Record<string, unknown>[]>(`select * from api_key where id = ?`, [customer.apiKeyId]);
    const stored = JSON.stringify(row);
    expect(stored).not.to.contain(customer.apiKey);
    expect(stored).not.to.contain(customer.apiKey.slice(-20));
  });
});

// R48 gives DATABASE_URL libpq's meanings: a host may be an IPv6 literal in brackets
// (`postgres://user@[::1]:5432/db`), as on IPv6-only networks. Migrations (through the ORM),
// the service's requests and its session pool all connect through one. The server here listens
// on IPv4; a forwarder on ::1 stands for one reached over IPv6.
import { expect } from 'chai';
import type { MikroORM } from '@mikro-orm/postgresql';
import { applyMigrations } from '../../../src/db/migrator.ts';
import { createCustomerFixture, createServerDatabase, openOrm } from '../../support/database.ts';
import { send } from '../../support/http-client.ts';
import { startTestService, type TestService } from '../../support/service.ts';
import { startTcpProxy, type TcpProxy } from '../../support/tcp-proxy.ts';

describe('DATABASE_URL with an IPv6 literal as its host (R48)', function () {
  this.timeout(60_000);
  let database: { url: string; drop(): Promise<void> };
  let forwarder: TcpProxy;
  let orm: MikroORM | undefined;
  let service: TestService | undefined;

  before(async () => {
    database = await createServerDatabase();
    const target = new URL(database.url);
    forwarder = await startTcpProxy(target.hostname, Number(target.port || 5432), '::1');
  });
  after(async () => {
    await service?.close();
    await orm?.close(true);
    await forwarder.close();
    await database.drop();
  });

  it('migrates, serves and reads usage through postgres://…@[::1]:PORT/…', async () => {
    const url = new URL(database.url);
    url.host = `[::1]:${forwarder.port}`;
    const url6 = url.toString();
    expect(url6).to.include('@[::1]:');

    orm = await openOrm(url6, 2);
    await applyMigrations(orm);
    service = await startTestService({ DATABASE_URL: url6 });
    const customer = await createCustomerFixture({}, orm.em.fork());
    const res = await send(service.url, 'GET', '/v1/usage/current', { headers: { 'x-api-key': customer.apiKey } });
    expect(res.status, res.text).to.equal(200);
  });
});

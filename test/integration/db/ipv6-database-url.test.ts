// R48 gives DATABASE_URL libpq's meanings: a host may be an IPv6 literal in brackets
// (`postgres://user@[::1]:5432/db`), as on IPv6-only networks. Migrations (through the ORM),
// the service's requests and its session pool all connect through one. The server here listens
// on IPv4; a forwarder on ::1 stands for one reached over IPv6.
import { expect } from 'chai';
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { MikroORM } from '@mikro-orm/postgresql';
import { applyMigrations } from '../../../src/db/migrator.ts';
import { createCustomerFixture, createServerDatabase, openOrm } from '../../support/database.ts';
import { send } from '../../support/http-client.ts';
import { startTestService, type TestService } from '../../support/service.ts';

describe('DATABASE_URL with an IPv6 literal as its host (R48)', function () {
  this.timeout(60_000);
  let database: { url: string; drop(): Promise<void> };
  let forwarder: Server;
  const sockets = new Set<Socket>();
  let orm: MikroORM | undefined;
  let service: TestService | undefined;

  before(async () => {
    database = await createServerDatabase();
    const target = new URL(database.url);
    forwarder = createServer((client) => {
      const upstream = connect(Number(target.port || 5432), target.hostname);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket)).on('error', () => socket.destroy());
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve, reject) => forwarder.once('error', reject).listen(0, '::1', resolve));
  });
  after(async () => {
    await service?.close();
    await orm?.close(true);
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => forwarder.close(() => resolve()));
    await database.drop();
  });

  it('migrates, serves and reads usage through postgres://…@[::1]:PORT/…', async () => {
    const url = new URL(database.url);
    const address = forwarder.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    url.host = `[::1]:${address.port}`;
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

// Ruling R35: from the moment SIGTERM arrives /readyz answers 503; the server keeps accepting
// and serving for SHUTDOWN_DRAIN_MS (so a load balancer's health check sees the instance leave
// before it stops accepting), with `connection: close` on every answer; then it stops accepting,
// finishes what is in flight and exits 0. Whatever hangs, the process ends within
// SHUTDOWN_DRAIN_MS + SHUTDOWN_TIMEOUT_MS plus a second.
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { createCustomerFixture, proxyToTestDatabase, testDatabaseUrl } from '../support/database.ts';
import { client, send } from '../support/http-client.ts';
import { startServerProcess, type ServerProcess } from '../support/server-process.ts';
import { waitUntilInFlight } from '../support/reports.ts';
import { viaProxy, type TcpProxy } from '../support/tcp-proxy.ts';

const refused = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });

const REPORT = { context: 'property_maintenance', evidence: { text: 'The lobby door closer leaks oil.' } };

describe('draining on SIGTERM (R35)', function () {
  this.timeout(90_000);
  let server: ServerProcess | undefined;
  let proxy: TcpProxy | undefined;

  afterEach(async () => {
    server?.kill();
    await proxy?.close();
    proxy = undefined;
  });

  async function start(env: Record<string, string>): Promise<string> {
    server = startServerProcess({ DATABASE_URL: testDatabaseUrl(), PORT: '0', LOG_LEVEL: 'info', ...env });
    return String((await server.waitForLog('listening', 45_000)).url);
  }

  it('readyz turns 503 at once, serving goes on for SHUTDOWN_DRAIN_MS with connection: close, then the listener closes and the process exits 0', async () => {
    const drainMs = 2_000;
    const url = await start({ SHUTDOWN_DRAIN_MS: String(drainMs), SHUTDOWN_TIMEOUT_MS: '3000' });
    const port = Number(new URL(url).port);
    const customer = await createCustomerFixture();
    // The client asks to keep its connection; before SIGTERM the server agrees.
    const keepAlive = { headers: { connection: 'keep-alive' } };
    const before = await send(url, 'GET', '/readyz', keepAlive);
    expect(before.status).to.equal(200);
    expect(before.headers.connection).to.equal('keep-alive');

    const signalled = performance.now();
    server?.child.kill('SIGTERM');
    await server?.waitForLog('shutting down: draining, then finishing in-flight requests');
    const ready = await send(url, 'GET', '/readyz', keepAlive);
    expect(ready.status, 'readyz right after SIGTERM').to.equal(503);
    expect(ready.headers.connection).to.equal('close');
    expect((await send(url, 'GET', '/healthz')).status, 'healthz while draining').to.equal(200);

    // New connections are still accepted and served during the drain window.
    const created = await client(url, customer.apiKey).createReport(REPORT, { 'Idempotency-Key': 'during-drain', connection: 'keep-alive' });
    expect(created.status, created.text).to.equal(201);
    expect(created.headers.connection).to.equal('close');
    expect(performance.now() - signalled).to.be.below(drainMs);

    // After the window the listener closes, and the process exits 0 within the bound.
    let closed = false;
    while (!closed && performance.now() - signalled < drainMs + 3_000) {
      closed = await refused(port);
      if (!closed) await sleep(50);
    }
    expect(closed, 'the listener closed after the drain window').to.equal(true);
    expect(performance.now() - signalled, 'not before the drain window ended').to.be.at.least(drainMs - 100);
    expect((await server?.exited)?.code).to.equal(0);
    expect(performance.now() - signalled).to.be.below(drainMs + 3_000 + 1_000);
  });

  it('a request in flight when SIGTERM comes is answered during the drain with connection: close, though it asked to keep its connection', async () => {
    const url = await start({ SHUTDOWN_DRAIN_MS: '4000', SHUTDOWN_TIMEOUT_MS: '3000', OFFLINE_GENERATOR_DELAY_MS: '1500' });
    const customer = await createCustomerFixture();
    const inFlight = client(url, customer.apiKey).createReport(REPORT, { 'Idempotency-Key': 'in-flight-at-sigterm', connection: 'keep-alive' });
    // In flight for certain: its key is claimed, and the generator takes 1.5 s.
    await waitUntilInFlight(customer.customerId);
    const signalled = performance.now();
    server?.child.kill('SIGTERM');
    const created = await inFlight;
    expect(created.status, created.text).to.equal(201);
    expect(performance.now() - signalled, 'answered within the drain window, while the listener still accepts').to.be.below(4_000);
    expect(created.headers.connection).to.equal('close');
  });

  it('with the database partitioned and a request waiting on it, SIGTERM still ends the process within drain + timeout + 1 s (R33, R35)', async () => {
    proxy = await proxyToTestDatabase();
    const url = await start({
      DATABASE_URL: viaProxy(testDatabaseUrl(), proxy),
      SHUTDOWN_DRAIN_MS: '500',
      SHUTDOWN_TIMEOUT_MS: '1000',
      DB_STATEMENT_TIMEOUT_MS: '30000',
      DB_CONNECT_TIMEOUT_MS: '30000',
    });
    const customer = await createCustomerFixture();
    proxy.blackhole();
    const hanging = client(url, customer.apiKey)
      .createReport(REPORT)
      .then(
        (response) => response.status,
        (error: NodeJS.ErrnoException) => error.code,
      );
    await sleep(300);
    const signalled = performance.now();
    server?.child.kill('SIGTERM');
    expect((await server?.exited)?.code).to.equal(0);
    expect(performance.now() - signalled).to.be.below(500 + 1_000 + 1_000);
    expect(await hanging).to.be.oneOf(['ECONNRESET', 503]);
  });
});

// operator-interface.md "Health and operations": on SIGTERM the real server (node src/main.ts)
// stops accepting connections, lets the in-flight request finish, closes the database and
// exits 0.
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import pg from 'pg';
import type { MikroORM } from '@mikro-orm/postgresql';
import { countCustomerRows, createCustomerFixture, createServerDatabase, openOrm, testDatabaseUrl, testEm } from '../support/database.ts';
import { client } from '../support/http-client.ts';
import { startServerProcess, type ServerProcess } from '../support/server-process.ts';
import { waitFor, waitUntilInFlight } from '../support/reports.ts';

/** True when a TCP connection to the port is refused. */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

/** Waits until the request holds its idempotency claim, i.e. it is past step 5 and generating. */
/** The real entry point, with the offline generator taking `generatorMs` over each report. */
function startWithSlowGenerator(generatorMs: number, env: Record<string, string> = {}): ServerProcess {
  return startServerProcess({
    DATABASE_URL: testDatabaseUrl(),
    PORT: '0',
    HOST: '127.0.0.1',
    REPORT_GENERATOR: 'offline',
    OFFLINE_GENERATOR_DELAY_MS: String(generatorMs),
    LOG_LEVEL: 'info',
    ...env,
  });
}

/** Its URL once it listens, and a customer to send reports with. */
async function listening(server: ServerProcess) {
  const url = String((await server.waitForLog('listening', 45_000)).url);
  return { url, customer: await createCustomerFixture() };
}

describe('graceful shutdown on SIGTERM (operator-interface.md)', () => {
  let server: ServerProcess | undefined;

  afterEach(() => server?.kill());

  it('the in-flight request completes with 201, new connections are refused, and the process exits 0', async function () {
    this.timeout(60_000);
    server = startWithSlowGenerator(1500);
    const { url, customer } = await listening(server);
    const port = Number(new URL(url).port);

    const report = { context: 'property_maintenance', evidence: { text: 'The boiler pressure gauge reads zero.' } };
    let settled = false;
    const inFlight = client(url, customer.apiKey)
      .createReport(report, { 'Idempotency-Key': 'graceful-shutdown' })
      .finally(() => {
        settled = true;
      });
    await waitUntilInFlight(customer.customerId);
    server.child.kill('SIGTERM');

    // New connections are refused while the request is still running.
    let closed = false;
    for (let i = 0; i < 100 && !closed; i += 1) {
      closed = await refused(port);
      if (!closed) await sleep(20);
    }
    expect(closed, 'the listening socket was not closed').to.equal(true);
    expect(settled, 'the in-flight request ended before the listener closed').to.equal(false);

    const response = await inFlight;
    expect(response.status, JSON.stringify(response.body)).to.equal(201);
    // R35: answered after SIGTERM, so it closes its connection, though its request came before.
    expect(response.headers.connection).to.equal('close');
    expect((await server.exited).code).to.equal(0);
    expect(server.stdoutLines.some((line) => line.includes('shutting down'))).to.equal(true);
    // The completed request committed its report and its unit (R15) before the exit.
    const rows = await countCustomerRows(customer.customerId);
    expect(rows).to.include({ evidence_report: 1, usage_record: 1 });
  });
});

describe('a second signal during the shutdown (R35)', () => {
  let server: ServerProcess | undefined;

  afterEach(() => server?.kill());

  // Ctrl-C on `npm start` delivers SIGINT to npm and to the service, and npm passes its own on;
  // an orchestrator may repeat SIGTERM. Neither may cut the requests the first one lets finish.
  it('SIGTERM, then SIGINT and SIGTERM again: the in-flight request still completes with 201 and the process exits 0', async function () {
    this.timeout(60_000);
    server = startWithSlowGenerator(1500);
    const { url, customer } = await listening(server);
    const report = { context: 'field_inspection', evidence: { text: 'The gate latch is broken.' } };
    const inFlight = client(url, customer.apiKey).createReport(report, { 'Idempotency-Key': 'second-signal' });
    await waitUntilInFlight(customer.customerId);
    server.child.kill('SIGTERM');
    await server.waitForLog('shutting down: draining, then finishing in-flight requests');
    server.child.kill('SIGINT');
    server.child.kill('SIGTERM');
    const response = await inFlight;
    expect(response.status, JSON.stringify(response.body)).to.equal(201);
    const exit = await server.exited;
    expect(exit.signal ?? null, 'killed by the second signal').to.equal(null);
    expect(exit.code).to.equal(0);
    expect(await countCustomerRows(customer.customerId)).to.include({ evidence_report: 1, usage_record: 1 });
  });
});

describe('graceful shutdown is bounded (operator-interface.md)', () => {
  let server: ServerProcess | undefined;

  afterEach(() => server?.kill());

  it('a request longer than SHUTDOWN_TIMEOUT_MS is cut, leaves no report, unit or held key, and the process still exits 0 (R15, R14)', async function () {
    this.timeout(60_000);
    server = startWithSlowGenerator(30_000, { SHUTDOWN_TIMEOUT_MS: '300' });
    const { url, customer } = await listening(server);
    const report = { context: 'field_inspection', evidence: { text: 'A fence post leans after the storm.' } };
    const inFlight = client(url, customer.apiKey)
      .createReport(report, { 'Idempotency-Key': 'bounded-shutdown' })
      .then(
        (response) => response.status,
        (error: NodeJS.ErrnoException) => error.code,
      );
    await waitUntilInFlight(customer.customerId);
    server.child.kill('SIGTERM');
    expect((await server.exited).code).to.equal(0);
    expect(await inFlight).to.equal('ECONNRESET');
    const rows = await countCustomerRows(customer.customerId);
    expect(rows).to.include({ evidence_report: 0, usage_record: 0 });
    // R14: the cut request gave its key back before the database closed, so the client's retry
    // (to another instance) is served now, not refused as in progress until the lease passes.
    const held = await (await testEm()).execute<{ n: string }[]>(`select count(*) as n from idempotency_record where customer_id = ? and status = 'in_progress'`, [customer.customerId]);
    expect(Number(held[0]?.n), 'claims still held').to.equal(0);
  });

  it('a database that cannot close within the bound (a statement still waiting on a lock) does not hold the exit, and is named in the log (R35)', async function () {
    this.timeout(60_000);
    // A server of its own in both of the suite's runs: the embedded database serves one session
    // at a time, so a session holding a lock there would hold every other one.
    const database = await createServerDatabase();
    let orm: MikroORM | undefined;
    const holder = new pg.Client({ connectionString: database.url });
    try {
      server = startWithSlowGenerator(0, { DATABASE_URL: database.url, SHUTDOWN_TIMEOUT_MS: '300', DB_STATEMENT_TIMEOUT_MS: '8000' });
      const url = String((await server.waitForLog('listening', 45_000)).url);
      orm = await openOrm(database.url, 2);
      const customer = await createCustomerFixture({}, orm.em.fork());
      // Another session holds the report table against writes: the request's write waits on it.
      await holder.connect();
      await holder.query('begin');
      await holder.query('lock table evidence_report in share mode');
      const inFlight = client(url, customer.apiKey)
        .createReport({ context: 'field_inspection', evidence: { text: 'A gate hinge is loose.' } })
        .then(
          (response) => response.status,
          (error: NodeJS.ErrnoException) => error.code,
        );
      await waitFor(async () => (await holder.query("select 1 from pg_locks where relation = 'evidence_report'::regclass and not granted")).rowCount! > 0, 10_000);
      const linesBefore = server.stdoutLines.length;
      server.child.kill('SIGTERM');
      const exit = await server.exited;
      expect(exit.code).to.equal(0);
      expect(await inFlight).to.equal('ECONNRESET');
      const named = server.stdoutLines
        .slice(linesBefore)
        .map((line) => JSON.parse(line) as { msg?: string; dependencies?: string[] })
        .filter((line) => line.msg === 'closing dependencies did not finish within the shutdown bound; exiting without them');
      expect(named.map((line) => line.dependencies), server.stdoutLines.join('\n')).to.deep.equal([['database']]);
      await holder.query('rollback');
      // The write outlived the process on the server, and may run once the lock is gone, within
      // its statement timeout: its outcome is the client's to learn by a retry with the same key
      // (README, "a connection lost while that transaction commits"). Either way one report is
      // one unit (R15).
      const rows = await countCustomerRows(customer.customerId, orm.em.fork());
      expect(rows.evidence_report).to.be.at.most(1);
      expect(rows.usage_record).to.equal(rows.evidence_report);
    } finally {
      await holder.end().catch(() => undefined);
      await orm?.close(true);
      server?.kill();
      await database.drop();
    }
  });

  it('a connection that never sent a request does not hold the exit: with nothing in flight the process ends after the drain, not at SHUTDOWN_TIMEOUT_MS (R35)', async function () {
    this.timeout(60_000);
    server = startWithSlowGenerator(0, { SHUTDOWN_DRAIN_MS: '300', SHUTDOWN_TIMEOUT_MS: '20000' });
    const { url } = await listening(server);
    const silent = connect(Number(new URL(url).port), '127.0.0.1');
    silent.on('error', () => {});
    await new Promise((resolve) => silent.once('connect', resolve));
    const signalled = performance.now();
    server.child.kill('SIGTERM');
    expect((await server.exited).code).to.equal(0);
    // Far inside the 20 s bound: the drain, then the dependencies' closing.
    expect(performance.now() - signalled).to.be.below(10_000);
    silent.destroy();
  });
});

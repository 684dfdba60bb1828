// Crash recovery (rulings R14, R15): the real server (`node src/main.ts`) is killed with SIGKILL
// while report requests are in flight, then started again. Retrying each request with its
// Idempotency-Key until it is 201 leaves exactly one report per key, and units equal reports:
// a transaction cut by the kill left nothing, a claim left by the kill is taken over once its
// lease has passed (generator timeout + image timeout + 30 s: about 31 s here).
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { createCustomerFixture, testDatabaseIsPglite, testDatabaseUrl } from '../../support/database.ts';
import { send, type TestResponse } from '../../support/http-client.ts';
import { customerTotals, isReplay, REPORTS_PATH, bodyNumber, type CreatedReport } from '../../support/reports.ts';
import { expectApiError } from '../../support/expect-api-error.ts';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const REQUESTS = 20;

interface RunningServer {
  child: ChildProcess;
  url: string;
}

/** Starts `node src/main.ts` on a free port and resolves with the URL of its "listening" line. */
async function startServer(): Promise<RunningServer> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    DATABASE_URL: testDatabaseUrl(),
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'info',
    REPORT_GENERATOR: 'offline',
    OFFLINE_GENERATOR_DELAY_MS: '800',
    GENERATOR_TIMEOUT_MS: '1000',
    IMAGE_FETCH_TIMEOUT_MS: '100',
    RATE_LIMIT_REQUESTS: '1000',
    // One customer sends 20 at once: its in-flight limit (R52) is lifted like its rate limit.
    MAX_IN_FLIGHT_PER_CUSTOMER: '0',
    // PGlite's socket server takes 16 connections in all; the test process holds some.
    ...((await testDatabaseIsPglite()) ? { DB_POOL_SIZE: '4' } : {}),
  };
  const child = spawn(process.execPath, ['src/main.ts'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stderr?.resume();
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      // Not left running when the start fails: nobody else holds this child.
      child.kill('SIGKILL');
      reject(new Error('the server did not log "listening" within 20 s'));
    }, 20_000);
    child.once('exit', (code, signal) => reject(new Error(`the server exited during start (${code ?? signal})`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      let entry: { msg?: string; url?: string };
      try {
        entry = JSON.parse(line) as typeof entry;
      } catch {
        return;
      }
      if (entry.msg === 'listening' && entry.url) {
        clearTimeout(timer);
        resolve(entry.url);
      }
    });
  });
  return { child, url };
}

async function kill(server: RunningServer | undefined): Promise<void> {
  const child = server?.child;
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

describe('crash recovery: SIGKILL with requests in flight, restart, retry each key (R14, R15)', function () {
  this.timeout(120_000);
  let first: RunningServer | undefined;
  let second: RunningServer | undefined;

  after(async () => {
    await kill(first);
    await kill(second);
  });

  it('every key ends with exactly one report, and units equal reports', async () => {
    const customer = await createCustomerFixture();
    const headers = (i: number) => ({ 'x-api-key': customer.apiKey, 'idempotency-key': `crash-${i}` });
    const post = (url: string, i: number) => send<CreatedReport>(url, 'POST', REPORTS_PATH, { body: bodyNumber(i), headers: headers(i) });

    first = await startServer();
    const server = first;
    // Staggered so that the kill finds some requests done, some generating, some just arrived.
    const inFlight = Array.from({ length: REQUESTS }, (_, i) =>
      new Promise((resolve) => setTimeout(resolve, i * 40)).then(() => post(server.url, i)).then(
        (res) => res,
        () => undefined, // cut by the kill
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await kill(first);
    const beforeKill = await Promise.all(inFlight);
    const answered = new Map<number, TestResponse<CreatedReport>>();
    beforeKill.forEach((res, i) => {
      if (res !== undefined) answered.set(i, res);
    });
    for (const res of answered.values()) expect(res.status).to.equal(201);
    expect(answered.size, 'the kill cut some requests').to.be.below(REQUESTS);

    second = await startServer();
    const restarted = second;
    const finalIds = new Map<number, string>();
    const deadline = Date.now() + 90_000;
    const retryUntilCreated = async (i: number): Promise<void> => {
      for (;;) {
        const res = await post(restarted.url, i);
        if (res.status === 201) {
          finalIds.set(i, res.body.id);
          // An answer seen before the kill is replayed, unchanged.
          const earlier = answered.get(i);
          if (earlier) {
            expect(isReplay(res)).to.equal(true);
            expect(res.body).to.deep.equal(earlier.body);
          }
          return;
        }
        // A claim left by the killed process holds its key until its lease ends (R14).
        expectApiError(res, 'idempotency_in_progress');
        expect(Date.now(), `key crash-${i} still in progress`).to.be.below(deadline);
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
    };
    await Promise.all(Array.from({ length: REQUESTS }, (_, i) => retryUntilCreated(i)));
    expect(new Set(finalIds.values()).size).to.equal(REQUESTS);
    expect(await customerTotals(customer.customerId)).to.deep.equal({ reports: REQUESTS, units: REQUESTS, claims: 0 });
  });
});

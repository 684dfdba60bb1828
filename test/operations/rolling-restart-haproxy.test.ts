// Ruling R35, proven with a real load balancer: HAProxy (plain round robin, health check on
// /readyz every second) in front of two instances on one database, a steady load of keyed POSTs,
// and each instance restarted in turn (SIGTERM, exit 0, a new process on the same port, back in
// HAProxy's rotation, then the other). No client may notice: no connection error, no 5xx, every
// answer a fresh 201, and afterwards the customer's usage equals the 201s. HAProxy's own
// counters must show no retry either: a retry would mean a connection was refused, i.e. the
// instance stopped accepting before the health check took it out (the drain did not do its job),
// which the load balancer's retry would otherwise hide.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { Agent } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import type { MikroORM } from '@mikro-orm/postgresql';
import { createCustomerFixture, createServerDatabase, openOrm } from '../support/database.ts';
import { send } from '../support/http-client.ts';
import { freePort, haproxyConfig, startHaproxy, type Haproxy } from '../support/haproxy.ts';
import { startServerProcess, type ServerProcess } from '../support/server-process.ts';
import { bodyNumber, customerTotals, isReplay, REPORTS_PATH } from '../support/reports.ts';

/** Longer than HAProxy's check interval x fall (1 s x 1) plus a check's time (R35). */
const DRAIN_MS = 2_500;
const LOOPS = 12;
/** Bounds of the load, in count and in time, whatever happens. */
const MAX_REQUESTS = 40_000;
const MAX_LOAD_MS = 80_000;
const NAMES = ['ers1', 'ers2'] as const;

interface Outcome {
  created: number;
  failures: string[];
}

/** LOOPS clients sending keyed POSTs back to back through HAProxy, on keep-alive connections. */
function steadyLoad(baseUrl: string, apiKey: string): { stop(): Promise<Outcome> } {
  const outcome: Outcome = { created: 0, failures: [] };
  const deadline = performance.now() + MAX_LOAD_MS;
  let sent = 0;
  let stopped = false;
  const loop = async (n: number) => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      while (!stopped && sent < MAX_REQUESTS && performance.now() < deadline) {
        const i = sent++;
        try {
          const res = await send(baseUrl, 'POST', REPORTS_PATH, {
            body: bodyNumber(i),
            headers: { 'x-api-key': apiKey, 'idempotency-key': randomUUID() },
            agent,
          });
          if (res.status === 201 && !isReplay(res)) outcome.created++;
          else outcome.failures.push(`loop ${n}: ${res.status} ${res.text.slice(0, 200)}`);
        } catch (error) {
          outcome.failures.push(`loop ${n}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
        }
      }
    } finally {
      agent.destroy();
    }
  };
  const loops = Promise.all(Array.from({ length: LOOPS }, (_, n) => loop(n)));
  return {
    async stop() {
      stopped = true;
      await loops;
      return outcome;
    },
  };
}

describe('rolling restart behind HAProxy under load (R35)', function () {
  this.timeout(150_000);
  const processes = new Map<string, ServerProcess>();
  let database: { url: string; drop(): Promise<void> } | undefined;
  let haproxy: Haproxy | undefined;
  let orm: MikroORM | undefined;
  let load: { stop(): Promise<Outcome> } | undefined;

  after(async () => {
    await load?.stop();
    await haproxy?.stop();
    for (const process of processes.values()) process.kill();
    await Promise.all([...processes.values()].map((process) => process.exited));
    await orm?.close(true);
    await database?.drop();
  });

  it('the operator guide shows the HAProxy configuration this test runs', async () => {
    const readme = await readFile(new URL('../../docs/operations.md', import.meta.url), 'utf8');
    const shown = /```haproxy\n([\s\S]*?)```/.exec(readme)?.[1];
    const expected = haproxyConfig({
      bind: ':8080',
      servers: [
        { name: 'ers1', address: '10.0.0.11:8080' },
        { name: 'ers2', address: '10.0.0.12:8080' },
      ],
      statsSocket: '/run/haproxy/admin.sock',
    });
    expect(shown, 'the ```haproxy block of docs/operations.md').to.equal(expected);
  });

  it('two instances each restarted in turn under a steady load of keyed POSTs: no connection error, no 5xx, no retry by HAProxy, and usage == reports == units == 201s', async () => {
    database = await createServerDatabase();
    const ports = new Map<string, number>();
    for (const name of NAMES) ports.set(name, await freePort());
    const start = async (name: string) => {
      const process = startServerProcess({
        DATABASE_URL: (database as { url: string }).url,
        PORT: String(ports.get(name)),
        LOG_LEVEL: 'info',
        DB_POOL_SIZE: '8',
        // One instance takes the whole load while the other restarts, on a busy two-core machine.
        DB_CONNECT_TIMEOUT_MS: '5000',
        RATE_LIMIT_REQUESTS: '1000000',
        SHUTDOWN_DRAIN_MS: String(DRAIN_MS),
        SHUTDOWN_TIMEOUT_MS: '5000',
      });
      processes.set(name, process);
      await process.waitForLog('listening', 60_000);
    };
    await Promise.all(NAMES.map(start));
    orm = await openOrm(database.url, 2);
    const customer = await createCustomerFixture({ monthlyLimit: 1_000_000 }, orm.em.fork());
    haproxy = await startHaproxy(NAMES.map((name) => ({ name, port: ports.get(name) as number })));
    for (const name of NAMES) await haproxy.waitForStatus(name, 'UP');
    const front = `http://127.0.0.1:${haproxy.port}`;

    const began = performance.now();
    load = steadyLoad(front, customer.apiKey);
    await sleep(2_000);
    const restarts: string[] = [];
    for (const name of NAMES) {
      const old = processes.get(name) as ServerProcess;
      const signalled = performance.now();
      old.child.kill('SIGTERM');
      // HAProxy must see the instance leave while it still accepts (the drain window).
      await haproxy.waitForStatus(name, 'DOWN', DRAIN_MS);
      const downAfter = performance.now() - signalled;
      expect((await old.exited).code, `${name} exit code`).to.equal(0);
      const exitedAfter = performance.now() - signalled;
      await start(name);
      await haproxy.waitForStatus(name, 'UP');
      restarts.push(`${name}: down in HAProxy after ${Math.round(downAfter)} ms, exited after ${Math.round(exitedAfter)} ms, back up after ${Math.round(performance.now() - signalled)} ms`);
      await sleep(1_000);
    }
    await sleep(1_000);
    const outcome = await load.stop();
    load = undefined;
    const seconds = (performance.now() - began) / 1000;

    expect(outcome.failures.slice(0, 10), `${outcome.failures.length} client-visible failures`).to.deep.equal([]);
    const stats = await haproxy.stats();
    const backend = stats.get('BACKEND') as Record<string, string>;
    expect({ retries: backend.wretr, redispatches: backend.wredis, connectionErrors: backend.econ, responseErrors: backend.eresp }).to.deep.equal({
      retries: '0',
      redispatches: '0',
      connectionErrors: '0',
      responseErrors: '0',
    });
    for (const name of NAMES) expect(Number(stats.get(name)?.stot), `requests HAProxy sent to ${name}`).to.be.above(0);

    const usage = await send<{ usage: { used: number }[] }>(front, 'GET', '/v1/usage/current', { headers: { 'x-api-key': customer.apiKey } });
    expect(usage.status).to.equal(200);
    expect(usage.body.usage[0]?.used, 'usage total').to.equal(outcome.created);
    expect(await customerTotals(customer.customerId, orm.em.fork())).to.deep.equal({ reports: outcome.created, units: outcome.created, claims: 0 });
    process.stdout.write(
      `\n      rolling restart: ${outcome.created} keyed POSTs served (all 201) in ${seconds.toFixed(1)} s by ${LOOPS} clients, ` +
        `HAProxy sent ${NAMES.map((name) => `${name} ${stats.get(name)?.stot}`).join(', ')}; ${restarts.join('; ')}\n`,
    );
  });
});

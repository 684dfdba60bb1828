// The statement pass of the bench (targets: at most 3 statements per POST without a key
// and 4 with one, GET usage one statement): the service runs behind the counting proxy and
// answers a few hundred requests of each kind one at a time, so the wire counts, the database's
// committed transactions and the server's WAL flushes can each be divided by the requests.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { viaProxy } from '../../test/support/tcp-proxy.ts';
import type { NodeChild } from './processes.ts';
import { startStatementCounter } from './statement-counter.ts';
import { REPORTS_PATH, TEXT_REQUEST, USAGE_PATH } from './workload.ts';

const REQUESTS = 300;
// A backend publishes its statistics when it goes idle, at most once a second, and otherwise
// within PostgreSQL's idle interval of 10 s: reading them sooner undercounts.
const STATS_FLUSH_MS = 11_000;

export interface StatementFigures {
  request: string;
  requests: number;
  statementsPerRequest: number;
  roundTripsPerRequest: number;
  /** Transactions committed in the bench database (read-only ones included). */
  commitsPerRequest: number;
  /** WAL flushes of the whole server per request (other databases' work adds to it). */
  walSyncsPerRequest: number | null;
  byName: Record<string, number>;
}

interface Kind {
  request: string;
  send: (url: string) => Promise<Response>;
  status: number;
}

const kinds = (apiKey: string, reportId?: string): Kind[] => [
  {
    request: 'POST, no Idempotency-Key',
    status: 201,
    send: (url) => fetch(url + REPORTS_PATH, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': apiKey }, body: JSON.stringify(TEXT_REQUEST) }),
  },
  {
    request: 'POST, new Idempotency-Key',
    status: 201,
    send: (url) =>
      fetch(url + REPORTS_PATH, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': apiKey, 'idempotency-key': randomUUID() },
        body: JSON.stringify(TEXT_REQUEST),
      }),
  },
  { request: 'GET usage', status: 200, send: (url) => fetch(url + USAGE_PATH, { headers: { 'x-api-key': apiKey } }) },
  // R54: the caller's facts, then one read on the report's primary key.
  ...(reportId === undefined
    ? []
    : [{ request: 'GET report', status: 200, send: (url: string) => fetch(`${url}${REPORTS_PATH}/${reportId}`, { headers: { 'x-api-key': apiKey } }) }]),
];

async function serverCounters(client: pg.Client): Promise<{ commits: number; walSyncs: number | null }> {
  const { rows } = await client.query<{ commits: string; wal_syncs: string | null }>(
    `select (select xact_commit from pg_stat_database where datname = current_database()) as commits,
            (select wal_sync from pg_stat_wal) as wal_syncs`,
  );
  return { commits: Number(rows[0]?.commits), walSyncs: rows[0]?.wal_syncs === null || rows[0]?.wal_syncs === undefined ? null : Number(rows[0].wal_syncs) };
}

export async function measureStatements(opts: {
  dbUrl: string;
  start: (env: Record<string, string>) => Promise<NodeChild>;
  stop: (child: NodeChild) => Promise<void>;
  apiKey: string;
  /** A report of the key's customer: GET /v1/evidence/reports/{id} is counted too. */
  reportId?: string;
}): Promise<StatementFigures[]> {
  const target = new URL(opts.dbUrl);
  const counter = await startStatementCounter(target.hostname, Number(target.port || 5432));
  const service = await opts.start({ DATABASE_URL: viaProxy(opts.dbUrl, counter) });
  const stats = new pg.Client({ connectionString: opts.dbUrl });
  await stats.connect();
  try {
    const figures: StatementFigures[] = [];
    for (const kind of kinds(opts.apiKey, opts.reportId)) {
      // Unmeasured: connections opened, statements prepared, the key's last use recorded (R32).
      for (let i = 0; i < 20; i++) await (await kind.send(service.url)).arrayBuffer();
      await sleep(STATS_FLUSH_MS);
      const before = await serverCounters(stats);
      counter.take();
      for (let i = 0; i < REQUESTS; i++) {
        const response = await kind.send(service.url);
        await response.arrayBuffer();
        if (response.status !== kind.status) throw new Error(`statement pass: ${kind.request} answered ${response.status}`);
      }
      const taken = counter.take();
      // R33's bounds are set once per connection when the pool opens one (SET right after it
      // connects, R47): that is connection setup, not a statement of the request, and it is left
      // out of the per-request figures (the pool replaces connections idle for 10 s, so a few
      // open during a pass). Shown apart under byName.
      const setup = Object.entries(taken.byName)
        .filter(([name]) => name.startsWith('set statement_timeout'))
        .reduce((n, [, count]) => n + count, 0);
      const counted = { ...taken, statements: taken.statements - setup, roundTrips: taken.roundTrips - setup };
      await sleep(STATS_FLUSH_MS);
      const after = await serverCounters(stats);
      const per = (n: number) => Math.round((n / REQUESTS) * 100) / 100;
      figures.push({
        request: kind.request,
        requests: REQUESTS,
        statementsPerRequest: per(counted.statements),
        roundTripsPerRequest: per(counted.roundTrips),
        commitsPerRequest: per(after.commits - before.commits - 1), // the "before" read is one
        walSyncsPerRequest: after.walSyncs === null || before.walSyncs === null ? null : per(after.walSyncs - before.walSyncs),
        byName: Object.fromEntries(Object.entries(counted.byName).map(([name, n]) => [name, per(n)])),
      });
    }
    return figures;
  } finally {
    await stats.end();
    await opts.stop(service);
    await counter.close();
  }
}

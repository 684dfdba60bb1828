// Database helpers for tests. Every test file shares one database (TEST_DATABASE_URL, set by
// `npm test`, migrated once by mocha-hooks.ts), so tests never truncate shared tables: each
// test creates its own customers and looks only at their rows.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MikroORM, type EntityManager } from '@mikro-orm/postgresql';
import pg from 'pg';
import { bootstrap, type BootstrapInput } from '../../src/admin/bootstrap.ts';
import { startEmbedded } from '../../src/db/embedded.ts';
import { applyMigrations } from '../../src/db/migrator.ts';
import { ormOptions } from '../../src/db/orm-options.ts';
import { PlanRepository } from '../../src/plans/plan-repository.ts';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.ts';

export function testDatabaseUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_DATABASE_URL is not set: run the tests with `npm test`, or set it to a PostgreSQL URL.');
  return url;
}

/** A fault proxy (tcp-proxy.ts) in front of the test database; point a service at it with viaProxy. */
export function proxyToTestDatabase(): Promise<TcpProxy> {
  const target = new URL(testDatabaseUrl());
  return startTcpProxy(target.hostname, Number(target.port || 5432));
}

/** An ORM on a URL; the caller closes it. */
export function openOrm(url: string, poolMax = 4): Promise<MikroORM> {
  return MikroORM.init(ormOptions(url, poolMax));
}

let shared: Promise<MikroORM> | undefined;

/** One ORM on the test database for the whole run, closed by the root hook. */
export function testOrm(): Promise<MikroORM> {
  shared ??= openOrm(testDatabaseUrl());
  return shared;
}

export async function testEm(): Promise<EntityManager> {
  return (await testOrm()).em.fork();
}

export async function closeTestOrm(): Promise<void> {
  const orm = shared;
  shared = undefined;
  await (await orm)?.close(true);
}

/** True when the test database is PGlite (embedded) rather than a PostgreSQL server. */
export async function testDatabaseIsPglite(): Promise<boolean> {
  const [row] = await (await testEm()).execute<{ version: string }[]>('select version() as version');
  return row?.version.includes('PGlite') ?? false;
}

/**
 * Runs fn with the URL of an empty database of the same kind as the test database: a new
 * database on the PostgreSQL server, or a new embedded PGlite (PGlite has one database).
 */
export async function withEmptyDatabase(fn: (url: string) => Promise<void>): Promise<void> {
  if (await testDatabaseIsPglite()) {
    const dir = await mkdtemp(join(tmpdir(), 'ers-empty-db-'));
    const server = await startEmbedded(dir);
    try {
      await fn(server.url);
    } finally {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    }
    return;
  }
  await withServerDatabase(fn);
}

/**
 * The PostgreSQL server for what only a server can show (several sessions or instances on one
 * database, R34, R36): the test database's server, or, when the suite runs on the embedded
 * database, TEST_PG_SERVER_URL (default the local server, postgres://postgres@127.0.0.1:5432/postgres).
 */
export async function testServerUrl(): Promise<string> {
  if (!(await testDatabaseIsPglite())) return testDatabaseUrl();
  return process.env.TEST_PG_SERVER_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
}

/** The rows of one statement on a connection of its own to `url`, closed after. */
export async function queryOnce<T extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** Runs fn with the URL of a new, empty database on the PostgreSQL server of testServerUrl(). */
export async function withServerDatabase(fn: (url: string) => Promise<void>): Promise<void> {
  const database = await createServerDatabase();
  try {
    await fn(database.url);
  } finally {
    await database.drop();
  }
}

/**
 * A new, empty database on the server of testServerUrl() that outlives one call (for a suite's
 * before and after hooks); drop() removes it, closing whatever sessions are left.
 */
export async function createServerDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `ers_empty_${randomBytes(6).toString('hex')}`;
  const server = await testServerUrl();
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: server });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`create database ${name}`);
  const url = new URL(server);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`drop database if exists ${name} with (force)`) };
}

/** Runs fn with a migrated embedded PGlite database of its own in a temporary DATA_DIR. */
export async function withEmbeddedDatabase(fn: (orm: MikroORM, dataDir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'ers-pglite-'));
  const server = await startEmbedded(dir);
  const orm = await openOrm(server.url);
  try {
    await applyMigrations(orm);
    await fn(orm, dir);
  } finally {
    await orm.close(true);
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
}

export interface CustomerFixture {
  customerId: string;
  apiKeyId: string;
  apiKey: string;
  /** The plan of the active subscription; null with `noPlan`. */
  planCode: string | null;
}

/** A customer of this test alone: by default plan (1000), subscription, entitlement and key. */
export async function createCustomerFixture(input: Partial<BootstrapInput> = {}, em?: EntityManager): Promise<CustomerFixture> {
  const manager = em ?? (await testEm());
  const created = await bootstrap(manager, { name: `test customer ${randomUUID()}`, ...input });
  const plan = await new PlanRepository(manager.fork()).activePlan(created.customerId);
  return { ...created, planCode: plan?.code ?? null };
}

const CUSTOMER_TABLES = [
  ['customer', 'id'],
  ['api_key', 'customer_id'],
  ['subscription', 'customer_id'],
  ['product_entitlement', 'customer_id'],
  ['evidence_report', 'customer_id'],
  ['usage_record', 'customer_id'],
  ['usage_counter', 'customer_id'],
  ['idempotency_record', 'customer_id'],
] as const;

/** Rows per table that belong to the customer: compare before and after to prove "nothing changed". */
export async function countCustomerRows(customerId: string, em?: EntityManager): Promise<Record<string, number>> {
  const manager = em ?? (await testEm());
  const sql = CUSTOMER_TABLES.map(([table, column]) => `select '${table}' as t, count(*) as n from ${table} where ${column} = ?`).join(
    ' union all ',
  );
  const rows = await manager.execute<{ t: string; n: string }[]>(sql, CUSTOMER_TABLES.map(() => customerId));
  return Object.fromEntries(rows.map((row) => [row.t, Number(row.n)]));
}

/** Total rows of the tables an admin command can write, for commands without a customer. */
export async function countAllRows(em?: EntityManager): Promise<Record<string, number>> {
  const manager = em ?? (await testEm());
  const tables = ['customer', 'api_key', 'plan', 'subscription', 'product_entitlement'];
  const rows = await manager.execute<{ t: string; n: string }[]>(
    tables.map((table) => `select '${table}' as t, count(*) as n from ${table}`).join(' union all '),
  );
  return Object.fromEntries(rows.map((row) => [row.t, Number(row.n)]));
}

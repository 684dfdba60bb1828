// Shared set-up of the report-creation tests: a valid body, the error assertion built
// from the one catalogue, and the ledger that holds the invariant of R15 for every customer
// a file touches: usage units == stored reports == 201 (non-replay) responses.
import { expect } from 'chai';
import { once } from 'node:events';
import { connect } from 'node:net';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { components } from '../../generated/openapi.d.ts';
import { send, type TestResponse } from './http-client.ts';
import type { GenerationInput, GenerationOutput, ReportGenerator } from '../../src/generation/report-generator.ts';
import type { FetchedImage, FetchOptions, ImageFetcher } from '../../src/images/image-fetcher.ts';
import { testDatabaseIsPglite, testEm } from './database.ts';

export const REPORTS_PATH = '/v1/evidence/reports';

export const VALID_BODY = Object.freeze({
  context: 'property_maintenance',
  evidence: { text: 'Water is dripping from the trap under the kitchen sink.' },
});

/** A valid body made distinct by `n` (so two requests under one key are different requests). */
export function bodyNumber(n: number): Record<string, unknown> {
  return { context: 'property_maintenance', evidence: { text: `Water is dripping from trap number ${n}.` } };
}

/** The error envelope of every error response: the contract's own type (generated/). */
export type ErrorBody = components['schemas']['Error'];

export function isReplay(res: TestResponse): boolean {
  return res.headers['idempotent-replayed'] === 'true';
}

export interface CreateOptions {
  headers?: Record<string, string | string[]>;
  raw?: Buffer | string;
  /** Sent instead of the customer's key; `null` sends no x-api-key. */
  apiKey?: string | null;
}

/** Every usage unit and stored report of one customer. */
export async function customerTotals(customerId: string, em?: EntityManager): Promise<{ reports: number; units: number; claims: number }> {
  const manager = em ?? (await testEm());
  const [row] = await manager.execute<{ reports: string; units: string; claims: string }[]>(
    `select (select count(*) from evidence_report where customer_id = ?) as reports,
            (select coalesce(sum(units), 0) from usage_record where customer_id = ?) as units,
            (select count(*) from idempotency_record where customer_id = ? and status = 'in_progress') as claims`,
    [customerId, customerId, customerId],
  );
  return { reports: Number(row?.reports), units: Number(row?.units), claims: Number(row?.claims) };
}

/**
 * Counts the 201 (non-replay) answers per customer; verify() holds them equal to the stored
 * reports and usage units (R15: units equal stored reports equal 201 responses) and
 * finds no claim left in progress.
 */
export class Ledger {
  readonly #created = new Map<string, number>();

  /** Registers a customer (so that one with no 201 is still checked: 0 == 0 == 0). */
  track(customerId: string): void {
    if (!this.#created.has(customerId)) this.#created.set(customerId, 0);
  }

  note(customerId: string, res: TestResponse): void {
    this.track(customerId);
    if (res.status === 201 && !isReplay(res)) this.#created.set(customerId, (this.#created.get(customerId) ?? 0) + 1);
  }

  created(customerId: string): number {
    return this.#created.get(customerId) ?? 0;
  }

  /** Checks every tracked customer (on `em`, default the test database), then forgets them. */
  async verify(em?: EntityManager): Promise<void> {
    for (const [customerId, created] of this.#created) {
      const totals = await customerTotals(customerId, em);
      // No claim is left in progress either: every key a test used is free or completed (R14).
      expect(totals, `customer ${customerId}`).to.deep.equal({ reports: created, units: created, claims: 0 });
    }
    this.#created.clear();
  }
}

export interface Caller {
  readonly customerId: string;
  create<T = unknown>(body: unknown, options?: CreateOptions): Promise<TestResponse<T>>;
  usage<T = unknown>(): Promise<TestResponse<T>>;
}

/** POST /v1/evidence/reports and GET usage as one customer, every answer noted in the ledger. */
export function caller(baseUrl: string, customer: { customerId: string; apiKey: string }, ledger: Ledger): Caller {
  ledger.track(customer.customerId);
  const keyHeader = (options: CreateOptions): Record<string, string> => {
    const key = options.apiKey === undefined ? customer.apiKey : options.apiKey;
    return key === null ? {} : { 'x-api-key': key };
  };
  return {
    customerId: customer.customerId,
    async create<T>(body: unknown, options: CreateOptions = {}) {
      const headers = { ...keyHeader(options), ...options.headers };
      const res = await send<T>(baseUrl, 'POST', REPORTS_PATH, options.raw === undefined ? { body, headers } : { raw: options.raw, headers });
      ledger.note(customer.customerId, res);
      return res;
    },
    usage<T>() {
      return send<T>(baseUrl, 'GET', '/v1/usage/current', { headers: { 'x-api-key': customer.apiKey } });
    },
  };
}

/** The body of a 201 (and of GET /v1/evidence/reports/{id}, R54): the contract's own type. */
export type CreatedReport = components['schemas']['EvidenceReport'];

/** A generator port whose adapter a test can swap between requests (fault now, healthy later). */
export class SwappableGenerator implements ReportGenerator {
  current: ReportGenerator;
  constructor(initial: ReportGenerator) {
    this.current = initial;
  }
  generate(input: GenerationInput, signal?: AbortSignal): Promise<GenerationOutput> {
    return this.current.generate(input, signal);
  }
}

/** An image-fetcher port whose adapter a test can swap between requests. */
export class SwappableImageFetcher implements ImageFetcher {
  current: ImageFetcher;
  constructor(initial: ImageFetcher) {
    this.current = initial;
  }
  check(urls: readonly string[]): void {
    this.current.check?.(urls);
  }
  fetch<T = FetchedImage>(urls: readonly string[], signal?: AbortSignal, options?: FetchOptions<T>): Promise<T[]> {
    return this.current.fetch(urls, signal, options);
  }
}

/**
 * Environment for a service on the test database. PGlite's socket server takes 16 connections
 * in all, so there the pools stay small (the test's own ORM needs a few too).
 */
export async function serviceEnv(env: Record<string, string> = {}): Promise<Record<string, string>> {
  return (await testDatabaseIsPglite()) ? { DB_POOL_SIZE: '4', ...env } : env;
}

/** Polls until `condition` holds (a request has reached a fake, say); fails after `timeoutMs`. */
export async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** POST with a chunked body (no content-length); the shared client checks the response too. */
export function postChunked(baseUrl: string, headers: Record<string, string>, body: Buffer): Promise<TestResponse> {
  return send(baseUrl, 'POST', REPORTS_PATH, { headers, raw: body, chunked: true });
}

/**
 * A POST whose body arrives after step 1 has run (R5: authentication reads the headers only):
 * the headers are written, the key's first use is awaited in the database, `between` runs (a
 * test moves its clock there), then the body follows. Resolves with the raw answer.
 */
export async function postWithLateBody(baseUrl: string, customer: { customerId: string; apiKey: string }, body: unknown, between: () => void | Promise<void>): Promise<string> {
  const text = JSON.stringify(body);
  const socket = connect(Number(new URL(baseUrl).port), '127.0.0.1');
  await once(socket, 'connect');
  const answer = new Promise<string>((resolve) => {
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    socket.on('close', () => resolve(received));
  });
  socket.write(
    `POST ${REPORTS_PATH} HTTP/1.1\r\nHost: localhost\r\nx-api-key: ${customer.apiKey}\r\ncontent-type: application/json\r\n` +
      `content-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n`,
  );
  const em = await testEm();
  for (let i = 0; ; i++) {
    const rows = await em.fork().execute<{ used: boolean }[]>('select last_used_at is not null as used from api_key where customer_id = ?', [customer.customerId]);
    if (rows[0]?.used) break;
    if (i > 200) throw new Error('the request was never authenticated');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  await between();
  socket.write(text);
  return answer;
}

/** Resolves once a request of the customer holds an Idempotency-Key claim (it is past step 5, in flight). */
export async function waitUntilInFlight(customerId: string): Promise<void> {
  const em = await testEm();
  for (let i = 0; i < 300; i += 1) {
    const rows = await em.fork().execute<{ n: string }[]>(`select count(*) as n from idempotency_record where customer_id = ? and status = 'in_progress'`, [customerId]);
    if (Number(rows[0]?.n) > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the request never reached the generator');
}

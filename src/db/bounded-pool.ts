// Every wait on PostgreSQL is bounded (ruling R33), for the ORM's pool and the rate limiter's
// pool alike:
// - taking a pooled connection or opening one: DB_CONNECT_TIMEOUT_MS (pg-pool's
//   connectionTimeoutMillis covers the wait in its queue AND the new connection's start-up);
// - one statement: DB_STATEMENT_TIMEOUT_MS on the server (statement_timeout), and the same plus
//   a margin on the client (query_timeout), because a server behind a partition never answers
//   and never cancels anything;
// - no session idle in a transaction longer than the statement bound
//   (idle_in_transaction_session_timeout), so a client that vanished mid-transaction does not
//   hold its locks;
// - TCP keep-alive on every socket, so a peer that is gone for good is noticed by the kernel.
//
// pg's client-side query_timeout rejects the query but leaves the connection waiting for the
// answer that never comes: the next query on it queues behind the dead one, and a pool handing
// such a connection out again is wedged for good (issue 9: every request still hung 3 minutes
// after the partition ended). BoundedClient closes its socket when a read times out, so the
// pool drops the connection on release and opens a fresh one for the next caller. And one
// connection that went silent says the others opened before it are probably dead too: the
// idle ones are closed at once (guardPool), rather than each costing a later request a full
// statement timeout after the database is back.
//
// The embedded PGlite (R3) ignores the two server settings (it is one in-process session);
// the client-side bounds still hold there.
import pg from 'pg';

export interface DatabaseBounds {
  /** DB_CONNECT_TIMEOUT_MS */
  readonly connectTimeoutMs: number;
  /** DB_STATEMENT_TIMEOUT_MS */
  readonly statementTimeoutMs: number;
}

/** The server's own timeout answers first; the client's catches a server that cannot answer. */
const CLIENT_READ_MARGIN_MS = 250;
/** Keep-alive probes start after this much silence on a socket. */
const KEEP_ALIVE_DELAY_MS = 10_000;

const isReadTimeout = (error: unknown): boolean => error instanceof Error && error.message === 'Query read timeout';

/** A pg Client that gives up its connection when a statement's answer does not come in time. */
export class BoundedClient extends pg.Client {
  /** Set by guardPool: what the pool does when this connection's read timed out. */
  onReadTimeout: (() => void) | undefined;

  // pg's query() has many overloads (promise, callback, submittable); wrap whichever was used.
  override query(...args: unknown[]): never {
    const last = args.length - 1;
    const callback = args[last];
    if (typeof callback === 'function') {
      args[last] = (error: unknown, result: unknown) => {
        if (isReadTimeout(error)) this.#abandon();
        (callback as (e: unknown, r: unknown) => void)(error, result);
      };
    }
    const result = (super.query as (...a: unknown[]) => unknown)(...args);
    if (result instanceof Promise) {
      return result.catch((error: unknown) => {
        if (isReadTimeout(error)) this.#abandon();
        throw error;
      }) as never;
    }
    return result as never;
  }

  #abandon(): void {
    this.closeSocket();
    this.onReadTimeout?.();
  }

  /** Ends the connection without waiting for the server (which may never answer). */
  closeSocket(): void {
    // A socket of a connection that never finished starting has no stream yet.
    (this as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
  }
}

/**
 * Follows which connections of a pool are idle; when one connection's read times out, every idle
 * one is closed (the pool then drops it: an idle client's error removes it) so that the next
 * callers get fresh connections. Call once per pool, right after it is created.
 */
export function guardPool(pool: pg.Pool): void {
  const idle = new Set<BoundedClient>();
  const track = (client: pg.PoolClient | pg.Client) => {
    if (!(client instanceof BoundedClient)) return undefined;
    client.onReadTimeout ??= () => {
      for (const other of [...idle]) other.closeSocket();
      idle.clear();
    };
    return client;
  };
  pool.on('acquire', (client) => {
    const bounded = track(client);
    if (bounded) idle.delete(bounded);
  });
  pool.on('release', (error: Error | undefined, client: pg.PoolClient) => {
    const bounded = track(client);
    if (bounded && error === undefined) idle.add(bounded);
  });
  pool.on('remove', (client) => {
    const bounded = track(client);
    if (bounded) idle.delete(bounded);
  });
}

/** pg Pool options that apply R33's bounds. */
export function boundedPoolOptions(bounds: DatabaseBounds) {
  return {
    Client: BoundedClient,
    connectionTimeoutMillis: bounds.connectTimeoutMs,
    query_timeout: bounds.statementTimeoutMs + CLIENT_READ_MARGIN_MS,
    statement_timeout: bounds.statementTimeoutMs,
    idle_in_transaction_session_timeout: bounds.statementTimeoutMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEP_ALIVE_DELAY_MS,
  } satisfies pg.PoolConfig;
}

/** Resolves true when `check` resolves true within `timeoutMs`, false otherwise; never throws. */
export async function answersWithin(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([check().catch(() => false), late]);
  } finally {
    clearTimeout(timer);
  }
}

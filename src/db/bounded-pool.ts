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
// - TCP keep-alive on every socket, so a peer that is gone for good is noticed by the kernel;
//   on a session of its own the server's side too (tcp_keepalives_*, tcp_user_timeout, below).
//
// R47: R33's two server settings are never start-up parameters (a transaction-mode pooler refuses
// those, or drops them when it hands the server connection to another client). Where they are
// set depends on what DATABASE_URL may be:
// - behind a pooler (DATABASE_PREPARED_STATEMENTS=false, or DATABASE_DIRECT_URL set, which says
//   DATABASE_URL is not a session of its own): per transaction. Every statement a BoundedClient
//   sends is preceded, in the same round trip and the same transaction, by `select
//   set_config('statement_timeout', ..., true), set_config('idle_in_transaction_session_timeout',
//   ..., true)`:
//   - a parameterised statement (extended protocol) gets the prelude as its own
//     Parse/Bind/Execute before the statement's, with one Sync after both: PostgreSQL runs the
//     messages up to a Sync as one transaction and arms statement_timeout at the start of each
//     Execute, so the statement runs under the bound, and a pooler keeps both on one server
//     connection;
//   - a plain-text statement (simple protocol) gets the prelude prepended as a first statement
//     of the same query string (one implicit transaction; a BEGIN in it makes that transaction
//     the explicit one, which keeps both settings until COMMIT).
//   A set_config inside the statement itself would not do: the timer is armed before it runs.
//   The prelude's messages are consumed here; callers see their own statement's result only.
//   Statements that end a transaction (COMMIT, ROLLBACK, ...) go without it: after an error a
//   prelude would itself fail and the ROLLBACK behind it would never run.
// - on a session of its own (the default: a direct connection, where named statements are
//   prepared once per connection): once per connection, by SET right after it opens, so the
//   statements of a request are only its own (3 for a report, 1 for a usage read). The same SET
//   bounds how long the server keeps the session once this side is gone (a partition, a host
//   that died): PostgreSQL's backend otherwise waits on the kernel's defaults, two hours of
//   silence before the first keep-alive probe and about fifteen minutes of retransmissions,
//   holding its session-level locks (the expiry sweep's, R36) and a connection slot that the
//   service, reconnecting meanwhile, needs (53300 once max_connections is reached). The server
//   probes after SERVER_KEEPALIVE_IDLE_S of silence, every SERVER_KEEPALIVE_INTERVAL_S, and ends
//   the session once SERVER_USER_TIMEOUT_MS has passed without an answer, whether it was probing
//   an idle session or resending a result (on Linux TCP_USER_TIMEOUT also ends the probing;
//   where it is not supported, SERVER_KEEPALIVE_COUNT gives the same 25 s). Behind a pooler
//   these are the pooler's own settings (PgBouncer's tcp_keepalive and tcp_user_timeout), since
//   the pooler, not the service, is the server's peer.
//
// R47 also: with DATABASE_PREPARED_STATEMENTS=false every statement goes unnamed, whoever named
// it (our repositories, rate-limiter-flexible, MikroORM): a transaction-mode pooler hands the
// server connection a named statement was prepared on to other clients (42P05, 26000).
//
// pg's client-side query_timeout rejects the query but leaves the connection waiting for the
// answer that never comes: the next query on it queues behind the dead one, and a pool handing
// such a connection out again is wedged for good (R33: else every request would still hang 3 minutes
// after the partition ended). BoundedClient closes its socket when a read times out, so the
// pool drops the connection on release and opens a fresh one for the next caller. And one
// connection that went silent says the others opened before it are probably dead too: the
// idle ones are closed at once (guardPool), rather than each costing a later request a full
// statement timeout after the database is back.
//
// The embedded PGlite (R3) ignores the server settings (it is one in-process session);
// the client-side bounds still hold there.
import type { ConnectionOptions } from 'node:tls';
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

/** node-postgres's own client-side timeout (query_timeout): the bound when the server has none. */
export const isReadTimeout = (error: unknown): boolean => error instanceof Error && error.message === 'Query read timeout';

/** The pool options BoundedClient reads besides pg's own (pg-pool hands its options to each client). */
interface BoundedClientOptions extends pg.ClientConfig {
  boundedStatementTimeoutMs?: number;
  preparedStatements?: boolean;
  /** True: the bounds go with every statement (behind a pooler); false: SET once per connection. */
  boundsPerStatement?: boolean;
}

/** Statements that end a transaction or a part of one: never preceded by the prelude. */
const ENDS_TRANSACTION = /^\s*(commit|rollback|abort|end|release|savepoint|prepare\s+transaction|commit\s+prepared|rollback\s+prepared)\b/i;

/** Seconds of silence before the server's first keep-alive probe on a session of its own. */
const SERVER_KEEPALIVE_IDLE_S = 10;
/** Seconds between the server's keep-alive probes. */
const SERVER_KEEPALIVE_INTERVAL_S = 5;
/** Unanswered probes after which the server ends the session: 10 + 3 x 5 = 25 s of silence. */
const SERVER_KEEPALIVE_COUNT = 3;
/** Silence after which the server ends the session, probing or resending (PostgreSQL 12 or later). */
const SERVER_USER_TIMEOUT_MS = 25_000;

const sessionBoundsText = (ms: number): string =>
  `set statement_timeout = ${ms}; set idle_in_transaction_session_timeout = ${ms}; ` +
  `set tcp_keepalives_idle = ${SERVER_KEEPALIVE_IDLE_S}; set tcp_keepalives_interval = ${SERVER_KEEPALIVE_INTERVAL_S}; ` +
  `set tcp_keepalives_count = ${SERVER_KEEPALIVE_COUNT}; set tcp_user_timeout = ${SERVER_USER_TIMEOUT_MS}`;

const preludeText = (ms: number): string =>
  `select set_config('statement_timeout', '${ms}', true), set_config('idle_in_transaction_session_timeout', '${ms}', true)`;

type Connection = {
  parse(config: { text: string; name?: string }): void;
  bind(config: { portal?: string; statement?: string; values?: unknown[] }): void;
  execute(config: { portal?: string; rows?: number }): void;
  query(text: string): void;
  stream: { cork?(): void; uncork?(): void };
};

/** The parts of pg's Query (a documented submittable) that BoundedQuery builds on. */
interface PgQuery {
  text?: string;
  callback?: (error: unknown, result: unknown) => void;
  requiresPreparation(): boolean;
  submit(connection: Connection): Error | null;
  handleRowDescription(message: unknown): void;
  handleDataRow(message: unknown): void;
  handleCommandComplete(message: unknown, connection: unknown): void;
}
const PgQuery = pg.Query as unknown as new (config: unknown, values?: unknown, callback?: unknown) => PgQuery;

/**
 * A pg Query whose statement runs under R33's bounds set in its own transaction (see the top of
 * this file); the messages of the prelude never reach the caller.
 */
class BoundedQuery extends PgQuery {
  #preludeOpen = false;
  readonly #boundMs: number;

  constructor(boundMs: number, config: unknown, values?: unknown, callback?: unknown) {
    super(config, values, callback);
    this.#boundMs = boundMs;
  }

  override submit(connection: Connection): Error | null {
    if (typeof this.text !== 'string' || ENDS_TRANSACTION.test(this.text)) return super.submit(connection);
    this.#preludeOpen = true;
    if (this.requiresPreparation()) {
      connection.stream.cork?.();
      try {
        connection.parse({ text: preludeText(this.#boundMs) });
        connection.bind({});
        connection.execute({});
      } finally {
        connection.stream.uncork?.();
      }
      return super.submit(connection);
    }
    connection.query(`${preludeText(this.#boundMs)};\n${this.text}`);
    return null;
  }

  override handleRowDescription(message: unknown): void {
    if (!this.#preludeOpen) super.handleRowDescription(message);
  }

  override handleDataRow(message: unknown): void {
    if (!this.#preludeOpen) super.handleDataRow(message);
  }

  override handleCommandComplete(message: unknown, connection: unknown): void {
    if (this.#preludeOpen) {
      this.#preludeOpen = false;
      return;
    }
    super.handleCommandComplete(message, connection);
  }
}

/** A pg Client that gives up its connection when a statement's answer does not come in time. */
class BoundedClient extends pg.Client {
  /** Set by guardPool: what the pool does when this connection's read timed out. */
  onReadTimeout: (() => void) | undefined;
  readonly #boundMs: number | undefined;
  readonly #sessionBoundMs: number | undefined;
  readonly #named: boolean;

  constructor(options?: BoundedClientOptions) {
    super(options);
    const perStatement = options?.boundsPerStatement ?? options?.preparedStatements === false;
    this.#boundMs = perStatement ? options?.boundedStatementTimeoutMs : undefined;
    this.#sessionBoundMs = perStatement ? undefined : options?.boundedStatementTimeoutMs;
    this.#named = options?.preparedStatements !== false;
  }

  // On a session of its own the bounds are set once, right after the connection opens (the pool's
  // connect timeout covers it); behind a pooler they go with every statement (query below).
  override connect(...args: unknown[]): never {
    const ms = this.#sessionBoundMs;
    const connect = super.connect.bind(this) as (...a: unknown[]) => unknown;
    const setBounds = async (): Promise<void> => {
      if (ms !== undefined) await (super.query.bind(this) as (text: string) => Promise<unknown>)(sessionBoundsText(ms));
    };
    const callback = args[0];
    if (typeof callback === 'function') {
      connect((error: unknown) => {
        if (error) return (callback as (e: unknown) => void)(error);
        setBounds().then(
          () => (callback as (e?: unknown) => void)(),
          (failure: unknown) => (callback as (e: unknown) => void)(failure),
        );
      });
      return undefined as never;
    }
    return (connect() as Promise<void>).then(setBounds) as never;
  }

  // pg's query() has many overloads (promise, callback, submittable); wrap whichever was used.
  override query(...args: unknown[]): never {
    const first = args[0];
    const plain = first !== null && typeof first === 'object' && typeof (first as { submit?: unknown }).submit !== 'function';
    // R47: no name reaches the server when prepared statements are off.
    if (plain && !this.#named && 'name' in first) {
      const { name: _unnamed, ...rest } = first as { name?: unknown };
      args[0] = rest;
    }
    if (this.#boundMs !== undefined && (plain || typeof first === 'string')) return this.#bounded(args, this.#boundMs) as never;
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

  /** The statement as a BoundedQuery (a pg submittable), with pg's promise or callback contract kept. */
  #bounded(args: unknown[], boundMs: number): Promise<unknown> | undefined {
    const [config, values, callback] = args;
    const valuesGiven = typeof values !== 'function';
    const query = new BoundedQuery(boundMs, config, valuesGiven ? values : undefined, valuesGiven ? callback : values);
    const target = query;
    const submit = super.query.bind(this) as (q: unknown) => unknown;
    const given = target.callback;
    if (given !== undefined) {
      target.callback = (error, result) => {
        if (isReadTimeout(error)) this.#abandon();
        given(error, result);
      };
      submit(query);
      return undefined;
    }
    const promise = new Promise((resolve, reject) => {
      target.callback = (error, result) => (error ? reject(error as Error) : resolve(result));
    });
    submit(query);
    return promise.catch((error: unknown) => {
      if (isReadTimeout(error)) this.#abandon();
      throw error;
    });
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

/** How the service reaches a PostgreSQL server besides R33's bounds (R47, R48). */
export interface ConnectionChoices {
  /** DATABASE_PREPARED_STATEMENTS; default true. */
  readonly preparedStatements?: boolean;
  /**
   * R47: true when the URL may be a transaction pooler (prepared statements off, or a
   * DATABASE_DIRECT_URL beside it): the bounds then go with every statement. Default: as
   * `preparedStatements === false`.
   */
  readonly boundsPerStatement?: boolean;
  /** The `ssl` option built by postgres-tls.ts; default none. */
  readonly ssl?: false | ConnectionOptions;
}

/** pg Pool options that apply R33's bounds (per transaction, R47) and the choices of R47 and R48. */
export function boundedPoolOptions(bounds: DatabaseBounds, choices: ConnectionChoices = {}) {
  return {
    Client: BoundedClient,
    connectionTimeoutMillis: bounds.connectTimeoutMs,
    query_timeout: bounds.statementTimeoutMs + CLIENT_READ_MARGIN_MS,
    boundedStatementTimeoutMs: bounds.statementTimeoutMs,
    preparedStatements: choices.preparedStatements ?? true,
    boundsPerStatement: choices.boundsPerStatement ?? choices.preparedStatements === false,
    ssl: choices.ssl ?? false,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEP_ALIVE_DELAY_MS,
  } satisfies pg.PoolConfig & BoundedClientOptions;
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

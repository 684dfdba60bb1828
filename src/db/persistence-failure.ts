// What a repository throws: a typed persistence failure that each stage maps to its
// own code. No stage sees an SQLSTATE or a driver error, and no repository throws an HTTP error.
//
// - 'unavailable': the statement could not run or did not answer (no connection, a timeout of
//   R33, a server error). When it never reached the server nothing was written; when the
//   connection broke after it was sent, the server may have committed it all the same (a write
//   is all or nothing, but its answer can be lost): retries are made safe by Idempotency-Key.
// - 'report_not_written' / 'usage_not_recorded' / 'claim_lost': the write of steps 9-10 (R15)
//   that failed; the whole transaction rolled back.
export type PersistenceFailureKind = 'unavailable' | 'report_not_written' | 'usage_not_recorded' | 'claim_lost';

export class PersistenceFailure extends Error {
  override readonly name = 'PersistenceFailure';
  readonly kind: PersistenceFailureKind;
  /** The server's SQLSTATE when it answered with an error; for repositories and logs only. */
  readonly sqlState: string | undefined;

  constructor(kind: PersistenceFailureKind, options: { cause?: unknown; sqlState?: string } = {}) {
    super(`persistence failure: ${kind}`, { cause: options.cause });
    this.kind = kind;
    this.sqlState = options.sqlState;
  }
}

/** The SQLSTATE of a server error, if the cause is one. */
export function sqlStateOf(cause: unknown): string | undefined {
  const code = (cause as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

// The embedded database (R3, R49) after a write its files refused. PGlite 0.5 answers the
// statement whose write failed (a full disk: 53100 disk_full) and then never returns from the
// next one: it spins in WebAssembly on the main thread, where no timer or signal handler of R33
// or R35 can run again, so the whole process hangs until it is killed with SIGKILL, /healthz
// included, and stays hung after space is freed. (Upstream: a query after a disk-full error.)
//
// So the first such answer ends the database for this process: no statement reaches PGlite
// again (each is refused at once, and the service answers its fail-closed 503), and `onFatal`
// is told, which stops the process with one line, so that a supervisor starts it again once
// there is space. PGlite's files are then as after a crash, which it recovers from at start.
import type { PGlite } from '@electric-sql/pglite';

/**
 * The SQLSTATEs after which PGlite cannot be trusted to answer again: the disk is full (53100),
 * a file could not be written (58030 io_error), or, as PostgreSQL reports a write refused for
 * a reason of its own (EFBIG: a file-size limit), an internal error about writing or extending
 * a file (XX000 "could not write…", "could not extend…").
 */
export function isStorageFailure(code: string, message: string): boolean {
  return code === '53100' || code === '58030' || (code === 'XX000' && /^could not (write|extend)/.test(message));
}

/** The code and message of the first ErrorResponse ('E') among backend messages, if any. */
export function errorResponseOf(data: Uint8Array): { code: string; message: string } | undefined {
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  let at = 0;
  while (at + 5 <= bytes.length) {
    const type = bytes[at];
    const length = bytes.readUInt32BE(at + 1);
    const end = at + 1 + length;
    if (length < 4 || end > bytes.length) return undefined;
    if (type === 0x45) {
      const fields: Record<string, string> = {};
      let field = at + 5;
      while (field < end && bytes[field] !== 0) {
        const name = String.fromCharCode(bytes[field] as number);
        const stop = bytes.indexOf(0, field + 1);
        if (stop === -1 || stop >= end) break;
        fields[name] = bytes.toString('utf8', field + 1, stop);
        field = stop + 1;
      }
      return { code: fields.C ?? '', message: fields.M ?? '' };
    }
    at = end;
  }
  return undefined;
}

/** Raised instead of running a statement once the embedded database has stopped. */
export class EmbeddedDatabaseStopped extends Error {
  override readonly name = 'EmbeddedDatabaseStopped';
  readonly code: string;
  constructor(code: string) {
    super(`the embedded database stopped after a storage failure (SQLSTATE ${code})`);
    this.code = code;
  }
}

/** Wraps the instance's protocol entry point (the one pglite-socket's queue calls). */
export function guardStorageFailures(db: PGlite, onFatal: (code: string) => void): void {
  const run = db.execProtocolRawStream.bind(db);
  let stopped: string | undefined;
  db.execProtocolRawStream = async (message, options) => {
    if (stopped !== undefined) throw new EmbeddedDatabaseStopped(stopped);
    return run(message, {
      ...options,
      onRawData: (data) => {
        const error = stopped === undefined ? errorResponseOf(data) : undefined;
        if (error && isStorageFailure(error.code, error.message)) {
          stopped = error.code;
          onFatal(error.code);
        }
        options?.onRawData?.(data);
      },
    });
  };
}

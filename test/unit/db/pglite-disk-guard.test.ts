// The guard of the embedded database's protocol entry point (pglite-disk-guard.ts): the first
// answer that says a write failed stops the database for this process; no statement reaches
// PGlite after it (PGlite would hang at the next one).
import { expect } from 'chai';
import type { PGlite } from '@electric-sql/pglite';
import { EmbeddedDatabaseStopped, errorResponseOf, guardStorageFailures, isStorageFailure } from '../../../src/db/pglite-disk-guard.ts';

/** A backend ErrorResponse with the given fields. */
function errorResponse(fields: Record<string, string>): Uint8Array {
  const body = Buffer.concat([...Object.entries(fields).map(([k, v]) => Buffer.from(`${k}${v}\0`, 'utf8')), Buffer.from([0])]);
  const head = Buffer.alloc(5);
  head[0] = 0x45;
  head.writeUInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}
const READY = Buffer.from([0x5a, 0, 0, 0, 5, 0x49]);
const ROW = Buffer.concat([Buffer.from([0x44, 0, 0, 0, 16, 0, 1, 0, 0, 0, 6]), Buffer.from('C53100')]);

describe('the embedded database stops after a write its files refused (R3, R33, R35)', () => {
  it('reads the SQLSTATE and message of an ErrorResponse among other messages, and nothing from data rows', () => {
    expect(errorResponseOf(Buffer.concat([ROW, errorResponse({ S: 'ERROR', C: '53100', M: 'could not extend file' }), READY]))).to.deep.equal({ code: '53100', message: 'could not extend file' });
    expect(errorResponseOf(Buffer.concat([ROW, READY])), 'a value that spells the code is data').to.equal(undefined);
  });

  it('storage failures: disk full, I/O error, and an internal error about writing or extending a file; nothing else', () => {
    expect(isStorageFailure('53100', 'could not extend file "base/5/16384": No space left on device')).to.equal(true);
    expect(isStorageFailure('58030', 'could not write to file')).to.equal(true);
    expect(isStorageFailure('XX000', 'could not extend file "base/5/16384": File too large')).to.equal(true);
    expect(isStorageFailure('XX000', 'cache lookup failed for relation 1')).to.equal(false);
    expect(isStorageFailure('23505', 'duplicate key value violates unique constraint')).to.equal(false);
    expect(isStorageFailure('57014', 'canceling statement due to statement timeout')).to.equal(false);
  });

  it('after the first such answer, onFatal is told once and no statement reaches the database again', async () => {
    const answers = [Buffer.concat([ROW, READY]), Buffer.concat([errorResponse({ C: '53100', M: 'could not extend file' }), READY]), Buffer.concat([ROW, READY])];
    let calls = 0;
    const db = {
      execProtocolRawStream: async (_message: Uint8Array, options?: { onRawData?: (data: Uint8Array) => void }) => {
        options?.onRawData?.(answers[calls++] as Uint8Array);
      },
    } as unknown as PGlite;
    const fatal: string[] = [];
    guardStorageFailures(db, (code) => fatal.push(code));
    const seen: Uint8Array[] = [];
    const options = { onRawData: (data: Uint8Array) => seen.push(data) };
    await db.execProtocolRawStream(new Uint8Array([0x51]), options);
    expect(fatal).to.deep.equal([]);
    await db.execProtocolRawStream(new Uint8Array([0x51]), options);
    expect(fatal, 'told once').to.deep.equal(['53100']);
    expect(seen, 'the failing answer still reaches its client (its 503)').to.have.length(2);
    let refused: unknown;
    try {
      await db.execProtocolRawStream(new Uint8Array([0x51]), options);
    } catch (error) {
      refused = error;
    }
    expect(refused).to.be.instanceOf(EmbeddedDatabaseStopped);
    expect(calls, 'PGlite was not asked again').to.equal(2);
  });
});

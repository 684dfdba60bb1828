// R48: without sslmode a DATABASE_URL is plain text here (libpq would try TLS first). To another
// machine that sends the password and the data in the clear, so the start says so, naming the
// variable and never the URL; to this machine, or with sslmode named, it says nothing.
import { expect } from 'chai';
import { loadConfig } from '../../../src/config.ts';
import { openDatabase } from '../../../src/db/database.ts';
import { captureLogger } from '../../support/generation/fake-gemini-suite.ts';

async function warningsOf(env: Record<string, string>): Promise<{ variable?: string; msg: string }[]> {
  const logger = captureLogger();
  // A name that no resolver knows (RFC 6761 .invalid): the connection fails at once, after the check.
  await openDatabase(loadConfig({ DB_CONNECT_TIMEOUT_MS: '500', ...env }), { logger }).then(
    (database) => database.close(),
    () => undefined,
  );
  return logger.lines.map((l) => JSON.parse(l) as { level: number; variable?: string; msg: string }).filter((l) => l.level === 40);
}

describe('a DATABASE_URL to another machine without sslmode (R48)', () => {
  it('is said at start, naming the variable and not the URL', async () => {
    const warned = await warningsOf({ DATABASE_URL: 'postgres://svc:pa55word@db.invalid:5432/reports' });
    const plain = warned.filter((l) => l.variable === 'DATABASE_URL');
    expect(plain).to.have.lengthOf(1);
    expect(plain[0]?.msg).to.match(/^DATABASE_URL names a host on another machine and no sslmode: the connection is plain text/);
    expect(JSON.stringify(warned)).not.to.include('pa55word');
    expect(JSON.stringify(warned)).not.to.include('db.invalid');
  });

  it('is not said with sslmode=disable (plain text meant) or for this machine', async () => {
    expect(await warningsOf({ DATABASE_URL: 'postgres://svc:pa55word@db.invalid:5432/reports?sslmode=disable' })).to.deep.equal([]);
    expect((await warningsOf({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/reports' })).filter((l) => l.variable !== undefined)).to.deep.equal([]);
  });
});

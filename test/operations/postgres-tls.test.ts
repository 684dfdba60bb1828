// Ruling R48: DATABASE_URL and DATABASE_DIRECT_URL honour sslmode with libpq's meanings, against
// a private PostgreSQL cluster this test starts (initdb, its own port, ssl = on, a server
// certificate for `localhost` signed by a CA made here, `hostssl` only, SCRAM passwords):
// - verify-full with the right CA works, for the service (both URLs) and the admin command line,
//   and pg_stat_ssl shows every connection of the service encrypted;
// - a certificate that fails verify-full (another CA, or a host name the certificate does not
//   name) stops the start with one line naming the variable, never a fallback to less;
// - verify-ca checks the chain but not the name; require encrypts without checking, and
//   against a server without TLS fails.
// No line any of these processes writes carries the password.
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServerProcess, type ServerProcess } from '../support/server-process.ts';
import { killInstances, startInstances, stopInstances, type Instance } from '../support/instances.ts';
import {
  createCertificateAuthority,
  issueClientCertificate,
  issueServerCertificate,
  type CertificateAuthority,
  type ServerCertificate,
} from '../support/tls-certificates.ts';
import { startTlsPostgres, type TlsPostgres } from '../support/tls-postgres.ts';
import { send } from '../support/http-client.ts';
import { runAdmin } from '../support/admin-cli.ts';
import { expectNoSecretIn, linesOf, testPassword } from '../support/secret-log-lines.ts';
import { REPORTS_PATH, bodyNumber } from '../support/reports.ts';

const USER = 'ers_tls';
const DATABASE = 'ers_tls';
/** Logs in with a client certificate (sslcert, sslkey) instead of a password. */
const CERT_USER = 'ers_tls_cert';

/** Starts the service and expects it to fail: resolves with every line it wrote. */
async function failedStart(env: Record<string, string>): Promise<{ code: number | null; lines: string[]; process: ServerProcess }> {
  const child = startServerProcess({ PORT: '0', LOG_LEVEL: 'info', ...env });
  const exit = await Promise.race([child.exited, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the service started')), 30_000))]);
  return { code: exit.code, lines: linesOf(child), process: child };
}

describe('TLS to PostgreSQL with libpq sslmode meanings (R48)', function () {
  this.timeout(180_000);
  let dir: string;
  let ca: CertificateAuthority;
  let otherCa: CertificateAuthority;
  let clientCertificate: ServerCertificate;
  let server: TlsPostgres;
  const password = testPassword('tls');
  const processes: ServerProcess[] = [];
  const extraLines: string[] = [];
  let running: Instance[] = [];

  const url = (host: string, params: Record<string, string>) => {
    const u = new URL(`postgres://${USER}@${host}:${server.port}/${DATABASE}`);
    u.password = password;
    for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
    return u.toString();
  };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ers-tls-pg-'));
    ca = await createCertificateAuthority(dir, 'test-ca');
    otherCa = await createCertificateAuthority(dir, 'other-ca');
    const certificate = await issueServerCertificate(dir, 'pg-server', ca, { dns: ['localhost'] });
    clientCertificate = await issueClientCertificate(dir, 'pg-client', ca, CERT_USER);
    server = await startTlsPostgres(await mkdtemp(join(tmpdir(), 'ers-tls-pg-cluster-')), certificate, { clientCa: ca.certFile, certUsers: [CERT_USER] });
    await server.createDatabase(DATABASE, USER, password);
    await server.createCertRole(CERT_USER, USER);
  });

  afterEach(() => {
    killInstances(running);
    running = [];
  });

  after(async () => {
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('verify-full with the right CA (both URLs): the service migrates, starts and serves; pg_stat_ssl shows every one of its connections encrypted', async () => {
    const verified = url('localhost', { sslmode: 'verify-full', sslrootcert: ca.certFile });
    running = await startInstances(1, { DATABASE_URL: verified, DATABASE_DIRECT_URL: verified, DB_POOL_SIZE: '3' });
    processes.push(...running.map((i) => i.process));
    const base = running[0]?.url ?? '';
    // The admin command line over the same URLs makes a customer the service then serves.
    const admin = await runAdmin(['bootstrap', '--name', 'tls customer', '--json'], { DATABASE_URL: verified, DATABASE_DIRECT_URL: verified });
    extraLines.push(...`${admin.stdout}\n${admin.stderr}`.split('\n'));
    expect(admin.code, admin.stderr).to.equal(0);
    const { apiKey } = JSON.parse(admin.stdout) as { apiKey: string };
    for (let i = 0; i < 5; i++) {
      expect((await send(base, 'POST', REPORTS_PATH, { body: bodyNumber(i), headers: { 'x-api-key': apiKey } })).status).to.equal(201);
    }
    expect((await send(base, 'GET', '/v1/usage/current', { headers: { 'x-api-key': apiKey } })).status).to.equal(200);
    const sessions = await server.admin<{ ssl: boolean; version: string | null }>(
      'select s.ssl, s.version from pg_stat_ssl s join pg_stat_activity a using (pid) where a.usename = $1',
      [USER],
    );
    expect(sessions.length, 'sessions of the service').to.be.greaterThan(0);
    for (const session of sessions) expect(session.ssl, JSON.stringify(session)).to.equal(true);
    expect(await stopInstances(running)).to.deep.equal([0]);
    running = [];
  });

  it('DATABASE_DIRECT_URL\'s other query parameters cannot undo its TLS: with ssl=0 beside verify-full, its session still verifies (R48; the server takes TLS only)', async () => {
    const verified = url('localhost', { sslmode: 'verify-full', sslrootcert: ca.certFile });
    const direct = url('localhost', { sslmode: 'verify-full', sslrootcert: ca.certFile, ssl: '0', query_timeout: '0' });
    running = await startInstances(1, { DATABASE_URL: verified, DATABASE_DIRECT_URL: direct, DB_POOL_SIZE: '2' });
    processes.push(...running.map((i) => i.process));
    expect((await send(running[0]?.url ?? '', 'GET', '/readyz')).status).to.equal(200);
    expect(await stopInstances(running)).to.deep.equal([0]);
    running = [];
  });

  for (const [label, variable, host, rootcert] of [
    ['a certificate from another CA', 'DATABASE_URL', 'localhost', 'other'],
    ['a host name the certificate does not name (127.0.0.1)', 'DATABASE_URL', '127.0.0.1', 'right'],
    ['a certificate from another CA on DATABASE_DIRECT_URL', 'DATABASE_DIRECT_URL', 'localhost', 'other'],
  ] as const) {
    it(`verify-full and ${label}: the start stops with one line naming ${variable}, exit 1`, async () => {
      const good = url('localhost', { sslmode: 'verify-full', sslrootcert: ca.certFile });
      const bad = url(host, { sslmode: 'verify-full', sslrootcert: rootcert === 'other' ? otherCa.certFile : ca.certFile });
      const env: Record<string, string> = variable === 'DATABASE_URL' ? { DATABASE_URL: bad } : { DATABASE_URL: good, DATABASE_DIRECT_URL: bad };
      const { code, lines, process } = await failedStart(env);
      processes.push(process);
      expect(code).to.equal(1);
      expect(lines, lines.join('\n')).to.have.length(1);
      const line = JSON.parse(lines[0] ?? '{}') as { msg?: string; err?: string };
      expect(line.msg).to.equal('start failed');
      expect(line.err).to.match(new RegExp(`^${variable}: the database server's certificate failed verification \\(sslmode=verify-full\\)`));
    });
  }

  it('verify-ca checks the chain but not the name: 127.0.0.1 with the right CA starts, with another CA it does not', async () => {
    running = await startInstances(1, { DATABASE_URL: url('127.0.0.1', { sslmode: 'verify-ca', sslrootcert: ca.certFile }) });
    processes.push(...running.map((i) => i.process));
    expect((await send(running[0]?.url ?? '', 'GET', '/readyz')).status).to.equal(200);
    const { code, lines, process } = await failedStart({ DATABASE_URL: url('127.0.0.1', { sslmode: 'verify-ca', sslrootcert: otherCa.certFile }) });
    processes.push(process);
    expect(code).to.equal(1);
    expect(lines.join('\n')).to.include('DATABASE_URL: the database server');
  });

  it('sslcert and sslkey: a role that logs in with a client certificate starts the service; without them the start stops with one line naming DATABASE_URL', async () => {
    const base = new URL(`postgres://${CERT_USER}@localhost:${server.port}/${DATABASE}`);
    base.searchParams.set('sslmode', 'verify-full');
    base.searchParams.set('sslrootcert', ca.certFile);
    const withCertificate = new URL(base);
    withCertificate.searchParams.set('sslcert', clientCertificate.certFile);
    withCertificate.searchParams.set('sslkey', clientCertificate.keyFile);
    running = await startInstances(1, { DATABASE_URL: withCertificate.toString() });
    processes.push(...running.map((i) => i.process));
    expect((await send(running[0]?.url ?? '', 'GET', '/readyz')).status).to.equal(200);
    const { code, lines, process } = await failedStart({ DATABASE_URL: base.toString() });
    processes.push(process);
    expect(code).to.equal(1);
    expect(lines, lines.join('\n')).to.have.length(1);
    expect((JSON.parse(lines[0] ?? '{}') as { err?: string }).err).to.match(/^DATABASE_URL: cannot connect to the database: .*certificate/);
  });

  it('require encrypts without checking the certificate (libpq): the service starts over TLS against a CA it was not given', async () => {
    running = await startInstances(1, { DATABASE_URL: url('127.0.0.1', { sslmode: 'require' }) });
    processes.push(...running.map((i) => i.process));
    expect((await send(running[0]?.url ?? '', 'GET', '/readyz')).status).to.equal(200);
    const sessions = await server.admin<{ ssl: boolean }>('select s.ssl from pg_stat_ssl s join pg_stat_activity a using (pid) where a.usename = $1', [USER]);
    expect(sessions.length).to.be.greaterThan(0);
    expect(sessions.every((s) => s.ssl)).to.equal(true);
  });

  it('an sslmode libpq could fall back to plain text with (prefer) is refused at start with one line naming the variable', async () => {
    const { code, lines, process } = await failedStart({ DATABASE_URL: url('localhost', { sslmode: 'prefer' }) });
    processes.push(process);
    expect(code).to.equal(1);
    expect(lines).to.have.length(1);
    expect(lines[0]).to.match(/^Invalid DATABASE_URL: expected sslmode to be one of disable, require, verify-ca, verify-full/);
  });

  it('require against a server without TLS fails the start with one line naming DATABASE_URL (no fallback to plain text)', async () => {
    await server.setSsl(false);
    try {
      const { code, lines, process } = await failedStart({ DATABASE_URL: url('localhost', { sslmode: 'require' }) });
      processes.push(process);
      expect(code).to.equal(1);
      expect(lines, lines.join('\n')).to.have.length(1);
      expect((JSON.parse(lines[0] ?? '{}') as { err?: string }).err).to.equal('DATABASE_URL: the database server does not offer TLS, which sslmode=require requires');
    } finally {
      await server.setSsl(true);
    }
  });

  it('no line written by the service or the admin command line in this suite carries the password (R48)', () => {
    expectNoSecretIn([...processes.flatMap(linesOf), ...extraLines], [password]);
  });
});

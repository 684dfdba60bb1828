// R48: the `ssl` option built from a PostgreSQL URL has libpq's meaning of each sslmode (the
// driver's own reading differs: there `require` verifies), and a bad setting names its variable.
// The behaviour against a real TLS server is in test/operations/postgres-tls.test.ts.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { plainTextByDefault, postgresTls, PostgresTlsError, withoutTlsParameters } from '../../../src/db/postgres-tls.ts';
import { ConfigError, loadConfig } from '../../../src/config.ts';
import { createCertificateAuthority, issueClientCertificate, type ServerCertificate } from '../../support/tls-certificates.ts';

describe('PostgreSQL TLS options with libpq meanings (R48)', () => {
  let dir: string;
  let ca: string;
  let client: ServerCertificate;

  before(async function () {
    this.timeout(30_000);
    dir = await mkdtemp(join(tmpdir(), 'ers-tls-options-'));
    const authority = await createCertificateAuthority(dir, 'ca');
    ca = authority.certFile;
    client = await issueClientCertificate(dir, 'client', authority, 'ers');
  });
  after(() => rm(dir, { recursive: true, force: true }));

  const url = (query: string) => `postgres://u:p@db.example.com:5432/d?${query}`;

  it('no sslmode and disable: no TLS', () => {
    expect(postgresTls(url(''), 'DATABASE_URL').ssl).to.equal(false);
    expect(postgresTls(url('sslmode=disable'), 'DATABASE_URL').ssl).to.equal(false);
  });

  it('sslrootcert=system without sslmode is verify-full against the system CAs, as in libpq 16', () => {
    const tls = postgresTls(url('sslrootcert=system'), 'DATABASE_URL');
    expect(tls.mode).to.equal('verify-full');
    expect(tls.ssl).to.include({ rejectUnauthorized: true, servername: 'db.example.com' });
    expect(tls.ssl).not.to.have.property('ca');
  });

  it('require: encrypted, nothing verified; with sslrootcert the chain is verified (libpq: verify-ca), never the name', () => {
    const plain = postgresTls(url('sslmode=require'), 'DATABASE_URL').ssl;
    expect(plain).to.include({ rejectUnauthorized: false });
    const rooted = postgresTls(url(`sslmode=require&sslrootcert=${ca}`), 'DATABASE_URL').ssl;
    expect(rooted).to.include({ rejectUnauthorized: true });
    expect(rooted && rooted.checkServerIdentity?.('other.example.com', {} as never)).to.equal(undefined);
  });

  it('verify-ca: chain verified, name not; verify-full: chain and the URL host verified, SNI set', () => {
    const caOnly = postgresTls(url(`sslmode=verify-ca&sslrootcert=${ca}`), 'DATABASE_URL').ssl;
    expect(caOnly).to.include({ rejectUnauthorized: true });
    expect(caOnly && caOnly.checkServerIdentity?.('x', {} as never)).to.equal(undefined);
    const full = postgresTls(url(`sslmode=verify-full&sslrootcert=${ca}`), 'DATABASE_URL').ssl;
    expect(full).to.include({ rejectUnauthorized: true, servername: 'db.example.com' });
    const mismatch = full && full.checkServerIdentity?.('db.example.com', { subject: { CN: 'other.example.com' }, subjectaltname: 'DNS:other.example.com' } as never);
    expect(mismatch).to.be.instanceOf(Error);
  });

  it('a file that cannot be read stops with one line naming the variable and the parameter, never the URL', () => {
    expect(() => postgresTls(url('sslmode=verify-full&sslrootcert=/nonexistent/ca.pem'), 'DATABASE_DIRECT_URL'))
      .to.throw(PostgresTlsError, /^Invalid DATABASE_DIRECT_URL: sslrootcert \/nonexistent\/ca.pem cannot be read \(ENOENT\)\.$/);
  });

  // Node's TLS reads PEM only: a DER file or other bytes would trust nothing and fail every
  // connection's certificate check at the first request, naming no variable.
  it('a CA or client certificate that is not PEM, or a key that is no key, stops the start with one line naming the variable and the parameter', async () => {
    const der = join(dir, 'ca.der');
    await new Promise<void>((resolve, reject) =>
      execFile('openssl', ['x509', '-in', ca, '-outform', 'der', '-out', der], (error) => (error ? reject(error) : resolve())),
    );
    const text = join(dir, 'not-a-certificate.pem');
    await writeFile(text, 'notpem\n');
    const broken = join(dir, 'broken.pem');
    await writeFile(broken, '-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n');
    const notKey = join(dir, 'not-a-key.key');
    await writeFile(notKey, 'key', { mode: 0o600 });
    const cases: [string, RegExp][] = [
      [`sslmode=verify-full&sslrootcert=${der}`, /^Invalid DATABASE_URL: sslrootcert \S+ca\.der holds a DER certificate, not PEM; convert it \(openssl x509 -inform der/],
      [`sslmode=verify-full&sslrootcert=${text}`, /^Invalid DATABASE_URL: sslrootcert \S+ holds no PEM certificate/],
      [`sslmode=verify-ca&sslrootcert=${broken}`, /^Invalid DATABASE_URL: sslrootcert \S+ holds a PEM certificate that cannot be parsed\.$/],
      [`sslmode=require&sslcert=${text}&sslkey=${client.keyFile}`, /^Invalid DATABASE_URL: sslcert \S+ holds no PEM certificate/],
      [`sslmode=require&sslcert=${client.certFile}&sslkey=${notKey}`, /^Invalid DATABASE_URL: sslkey \S+ holds no PEM private key that can be read\.$/],
    ];
    await chmod(client.keyFile, 0o600);
    for (const [query, message] of cases) expect(() => postgresTls(url(query), 'DATABASE_URL'), query).to.throw(PostgresTlsError, message);
    expect(postgresTls(url(`sslmode=verify-full&sslrootcert=${ca}&sslcert=${client.certFile}&sslkey=${client.keyFile}`), 'DATABASE_URL').ssl).to.include({
      rejectUnauthorized: true,
    });
  });

  it('a client key that others may read is refused as libpq refuses it: 0600 or less for the owner, naming the variable', async () => {
    const cert = client.certFile;
    const key = client.keyFile;
    await chmod(key, 0o600);
    const query = `sslmode=verify-full&sslrootcert=${ca}&sslcert=${cert}&sslkey=${key}`;
    expect(postgresTls(url(query), 'DATABASE_URL').ssl).to.include({ rejectUnauthorized: true });
    for (const mode of [0o644, 0o640, 0o604]) {
      await chmod(key, mode);
      expect(() => postgresTls(url(query), 'DATABASE_URL'), mode.toString(8)).to.throw(
        PostgresTlsError,
        new RegExp(`^Invalid DATABASE_URL: sslkey ${key.replace(/[.]/g, '\\.')} has group or world access; as libpq requires, it must be u=rw \\(0600\\) or less`),
      );
    }
    await chmod(key, 0o400);
    expect(postgresTls(url(query), 'DATABASE_URL').ssl).to.include({ rejectUnauthorized: true });
  });

  it('an encrypted client key (PKCS#8 or the traditional PEM) stops the start with one line saying so, not a bad-decrypt error at the first connection', async () => {
    const cert = client.certFile;
    for (const [name, pem] of [
      ['pkcs8.key', '-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIB\n-----END ENCRYPTED PRIVATE KEY-----\n'],
      ['traditional.key', '-----BEGIN EC PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-256-CBC,00\n\nMHc\n-----END EC PRIVATE KEY-----\n'],
    ] as const) {
      const key = join(dir, name);
      await writeFile(key, pem, { mode: 0o600 });
      expect(() => postgresTls(url(`sslmode=require&sslcert=${cert}&sslkey=${key}`), 'DATABASE_URL'), name).to.throw(
        PostgresTlsError,
        /^Invalid DATABASE_URL: sslkey \S+ is encrypted: the service reads a client key without a passphrase/,
      );
    }
  });

  it('a URL to another machine without sslmode is plain text by default: said, so that the start can warn (libpq would try TLS first)', () => {
    for (const plain of ['postgres://u:p@db.example.com/d', 'postgres://u:p@10.0.0.5:5432/d', 'postgres://u:p@[2001:db8::1]:5432/d']) {
      expect(plainTextByDefault(plain), plain).to.equal(true);
    }
    for (const local of [
      'postgres://u:p@127.0.0.1:5432/d',
      'postgres://u:p@localhost/d',
      'postgres://u:p@[::1]:5432/d',
      'postgres://u:p@db.example.com/d?sslmode=disable',
      'postgres://u:p@db.example.com/d?sslmode=require',
      'postgres://u:p@db.example.com/d?sslrootcert=system',
    ]) {
      expect(plainTextByDefault(local), local).to.equal(false);
    }
  });

  it('loadConfig refuses prefer, allow, unknown modes, sslcert without sslkey, certificates without sslmode and a weak mode with sslrootcert=system, naming the variable', () => {
    for (const query of [
      'sslmode=prefer',
      'sslmode=allow',
      'sslmode=verify',
      'sslmode=require&sslcert=/c.pem',
      // A CA or a client certificate without sslmode: libpq would prefer TLS and fall back to plain text.
      `sslrootcert=${ca}`,
      'sslcert=/c.pem&sslkey=/k.pem',
      // libpq refuses a mode weaker than verify-full with the system's CAs.
      'sslmode=require&sslrootcert=system',
      'sslmode=verify-ca&sslrootcert=system',
      'sslmode=disable&sslrootcert=system',
      // A passphrase for an encrypted key is not supported: refused, not ignored.
      'sslmode=verify-full&sslcert=/c.pem&sslkey=/k.pem&sslpassword=pass-phrase-9',
    ]) {
      expect(() => loadConfig({ DATABASE_URL: url(query) }), query).to.throw(ConfigError, /^Invalid DATABASE_URL: /);
      expect(() => loadConfig({ DATABASE_URL: url(query) }), query).not.to.throw(/pass-phrase-9/);
      expect(() => loadConfig({ DATABASE_URL: url(''), DATABASE_DIRECT_URL: url(query) }), query).to.throw(ConfigError, /^Invalid DATABASE_DIRECT_URL: /);
    }
    expect(() => loadConfig({ DATABASE_DIRECT_URL: url('') })).to.throw(ConfigError, /^Invalid DATABASE_DIRECT_URL: expected DATABASE_URL to be set as well\.$/);
    expect(() => loadConfig({ DATABASE_PREPARED_STATEMENTS: 'no' })).to.throw(ConfigError, /^Invalid DATABASE_PREPARED_STATEMENTS: expected one of true, false\.$/);
  });

  it('the driver gets the URL without the TLS parameters (it would otherwise apply its own meaning of sslmode)', () => {
    expect(withoutTlsParameters(url(`sslmode=require&sslrootcert=${ca}&application_name=x`))).to.equal('postgres://u:p@db.example.com:5432/d?application_name=x');
  });
});

// R48 and operator-interface.md ("a bad value stops the start with one clear line naming the
// variable"): REDIS_TLS_CA must name a PEM file of certificates. Node's TLS reads PEM only, so a
// CA handed out as DER, or any other bytes, would trust nothing: the start would succeed, /readyz
// would say ready, and every report creation would then fail closed with 503
// rate_limit_unavailable and a certificate error that names no variable.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { testDatabaseUrl } from '../support/database.ts';
import { failedStart } from '../support/server-process.ts';
import { createCertificateAuthority } from '../support/tls-certificates.ts';

describe('REDIS_TLS_CA that holds no PEM certificate stops the start (R48)', function () {
  this.timeout(60_000);
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ers-redis-ca-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  const start = async (caFile: string): Promise<{ code: number | null; err: string }> => {
    const { code, failed, printed } = await failedStart({
      DATABASE_URL: testDatabaseUrl(),
      PORT: '0',
      LOG_LEVEL: 'info',
      RATE_LIMIT_STORE: 'redis',
      REDIS_URL: 'rediss://ers:not-a-real-password@127.0.0.1:6379',
      REDIS_TLS_CA: caFile,
    });
    expect(failed, printed).to.have.length(1);
    expect(printed, 'the password reached the output').not.to.include('not-a-real-password');
    return { code, err: String(failed[0]?.err) };
  };

  it('a CA in DER form: exit 1, one line naming REDIS_TLS_CA and how to convert it', async () => {
    const ca = await createCertificateAuthority(dir, 'redis-ca');
    const der = join(dir, 'redis-ca.der');
    await promisify(execFile)('openssl', ['x509', '-in', ca.certFile, '-outform', 'der', '-out', der]);
    const { code, err } = await start(der);
    expect(code).to.equal(1);
    expect(err).to.equal(`Invalid REDIS_TLS_CA: ${der} holds a DER certificate, not PEM; convert it (openssl x509 -inform der -in FILE -out FILE.pem).`);
  });

  it('a file of other text: exit 1, one line naming REDIS_TLS_CA', async () => {
    const text = join(dir, 'not-a-certificate.pem');
    await writeFile(text, 'notpem\n');
    const { code, err } = await start(text);
    expect(code).to.equal(1);
    expect(err).to.equal(`Invalid REDIS_TLS_CA: ${text} holds no PEM certificate (-----BEGIN CERTIFICATE-----).`);
  });
});

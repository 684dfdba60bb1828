// Ruling R48: REDIS_URL accepts rediss:// with a user and password; REDIS_TLS_CA names a PEM
// file for a private CA. A redis-server started here speaks TLS only, with a certificate for
// `localhost` signed by a CA made here, and accepts ACL users only (the default user is off).
// The service runs as real processes with RATE_LIMIT_STORE=redis:
// - the rate limit stays exact over TLS, under concurrency;
// - without the CA the certificate fails verification: 503 rate_limit_unavailable, never a
//   request let through unlimited; a wrong password is the same;
// - R33's bound on a hung Redis holds over TLS (a partition in front of the TLS port), and the
//   service recovers once Redis answers again;
// - no line any of these processes writes carries the password.
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MikroORM } from '@mikro-orm/postgresql';
import { createCustomerFixture, createServerDatabase, openOrm } from '../support/database.ts';
import { send, type TestResponse } from '../support/http-client.ts';
import { killInstances, startInstances, type Instance } from '../support/instances.ts';
import { createCertificateAuthority, issueServerCertificate, type CertificateAuthority } from '../support/tls-certificates.ts';
import { startTlsRedis, type TlsRedis } from '../support/tls-redis.ts';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts';
import { expectApiError } from '../support/expect-api-error.ts';
import { expectNoSecretIn, linesOf, testPassword } from '../support/secret-log-lines.ts';
import { bodyNumber, REPORTS_PATH } from '../support/reports.ts';

const USER = 'ers-service';
const CONNECT_MS = 800;
const STATEMENT_MS = 1_200;

describe('TLS and ACL credentials to Redis: rediss:// with REDIS_TLS_CA (R48)', function () {
  this.timeout(180_000);
  let dir: string;
  let ca: CertificateAuthority;
  let redis: TlsRedis;
  let proxy: TcpProxy;
  let database: { url: string; drop(): Promise<void> };
  let orm: MikroORM;
  const password = testPassword('redis');
  const all: Instance[] = [];

  const redisUrl = (port: number, secret = password, host = 'localhost') => {
    const url = new URL(`rediss://${host}:${port}`);
    url.username = USER;
    url.password = secret;
    return url.toString();
  };
  const start = async (env: Record<string, string>) => {
    const [instance] = await startInstances(1, {
      DATABASE_URL: database.url,
      RATE_LIMIT_STORE: 'redis',
      DB_CONNECT_TIMEOUT_MS: String(CONNECT_MS),
      DB_STATEMENT_TIMEOUT_MS: String(STATEMENT_MS),
      ...env,
    });
    if (instance === undefined) throw new Error('no instance');
    all.push(instance);
    return instance.url;
  };
  const customer = () => createCustomerFixture({}, orm.em.fork());
  const post = (base: string, apiKey: string, n: number): Promise<TestResponse> =>
    send(base, 'POST', REPORTS_PATH, { body: bodyNumber(n), headers: { 'x-api-key': apiKey } });

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ers-tls-redis-'));
    ca = await createCertificateAuthority(dir, 'redis-ca');
    const certificate = await issueServerCertificate(dir, 'redis-server', ca, { dns: ['localhost'], ip: ['127.0.0.1'] });
    redis = await startTlsRedis(dir, certificate, ca, USER, password);
    proxy = await startTcpProxy('127.0.0.1', redis.port);
    database = await createServerDatabase();
    // The first instance migrates the new database; customers are made after it.
    await start({ REDIS_URL: redisUrl(redis.port), REDIS_TLS_CA: ca.certFile });
    orm = await openOrm(database.url, 2);
  });

  after(async () => {
    killInstances(all);
    await orm?.close(true);
    await proxy?.close();
    await redis?.stop();
    await database?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  it('the rate limit stays exact over TLS: limit 7, 20 concurrent POSTs give exactly 7 x 201 and 13 x 429 rate_limit_exceeded', async () => {
    const base = await start({ REDIS_URL: redisUrl(redis.port), REDIS_TLS_CA: ca.certFile, RATE_LIMIT_REQUESTS: '7', RATE_LIMIT_WINDOW_SECONDS: '3600' });
    const c = await customer();
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => post(base, c.apiKey, i)));
    expect(answers.filter((r) => r.status === 201)).to.have.length(7);
    for (const res of answers.filter((r) => r.status !== 201)) expectApiError(res, 'rate_limit_exceeded');
  });

  for (const [label, env, cause] of [
    ['without REDIS_TLS_CA the private CA is not trusted', () => ({ REDIS_URL: redisUrl(redis.port) }), { code: 'SELF_SIGNED_CERT_IN_CHAIN' }],
    ['a wrong password is refused by the ACL', () => ({ REDIS_URL: redisUrl(redis.port, 'not-the-password'), REDIS_TLS_CA: ca.certFile }), { redisError: 'WRONGPASS' }],
  ] as const) {
    it(`${label}: 503 rate_limit_unavailable, never a request let through unlimited; the log says why, once`, async () => {
      const base = await start({ ...env(), RATE_LIMIT_REQUESTS: '1000' });
      const c = await customer();
      for (let i = 0; i < 3; i++) expectApiError(await post(base, c.apiKey, i), 'rate_limit_unavailable');
      const instance = all.at(-1);
      if (instance === undefined) throw new Error('no instance');
      const warnings = linesOf(instance.process)
        .map((line) => JSON.parse(line) as { msg?: string; cause?: Record<string, unknown> })
        .filter((line) => line.msg?.startsWith('the rate-limit store (REDIS_URL) failed'));
      expect(warnings, 'one line per cause and minute, however often ioredis retries').to.have.length(1);
      expect(warnings[0]?.cause).to.include(cause);
    });
  }

  it(`a partition in front of the TLS port: 503 rate_limit_unavailable within connect + command bound + 1 s (R33); passing again: 201 within 15 s`, async () => {
    // The proxy listens on 127.0.0.1 only; the certificate names that address too.
    const base = await start({ REDIS_URL: redisUrl(proxy.port, password, '127.0.0.1'), REDIS_TLS_CA: ca.certFile, RATE_LIMIT_REQUESTS: '1000' });
    const c = await customer();
    expect((await post(base, c.apiKey, 1)).status).to.equal(201);
    proxy.blackhole();
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      expectApiError(await post(base, c.apiKey, 2), 'rate_limit_unavailable');
      expect(performance.now() - started).to.be.below(CONNECT_MS + STATEMENT_MS + 1_000);
    }
    proxy.restore();
    const restored = performance.now();
    let res = await post(base, c.apiKey, 3);
    while (res.status !== 201 && performance.now() - restored < 15_000) {
      expectApiError(res, 'rate_limit_unavailable');
      await new Promise((resolve) => setTimeout(resolve, 100));
      res = await post(base, c.apiKey, 3);
    }
    expect(res.status, 'recovered within 15 s once Redis answers again').to.equal(201);
  });

  it('every line the instances wrote is a JSON log line: the narrow ACL user of docs/operations.md lets the client run its ready check (INFO) without a plain-text warning', () => {
    const plain = all.flatMap(({ process }) => linesOf(process)).filter((line) => !line.startsWith('{'));
    expect(plain).to.deep.equal([]);
  });

  it('no line any process of this suite wrote carries the Redis password (R48)', () => {
    expectNoSecretIn(all.flatMap(({ process }) => linesOf(process)), [password]);
  });
});

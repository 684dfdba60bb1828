// operator-interface.md "Environment": loadConfig, the function main.ts
// calls first, rejects every bad value with one line naming the variable, treats an empty
// variable as unset, and freezes what it returns.
import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { urlPasswords } from '../support/secret-log-lines.ts';

const BAD: [variable: string, env: Record<string, string>][] = [
  ['PORT', { PORT: '70000' }],
  ['PORT', { PORT: '80.5' }],
  ['HOST', { HOST: 'two words' }],
  ['DATABASE_URL', { DATABASE_URL: 'not a url' }],
  ['DATABASE_URL', { DATABASE_URL: 'http://db.example/ers' }],
  ['IMAGE_FETCH_TIMEOUT_MS', { IMAGE_FETCH_TIMEOUT_MS: '1.5' }],
  ['IMAGE_MAX_COUNT', { IMAGE_MAX_COUNT: '0' }],
  ['REMOTE_IMAGE_ALLOW_CIDRS', { REMOTE_IMAGE_ALLOW_CIDRS: '127.0.0.1/32,10.0.0.0/33' }],
  ['REMOTE_IMAGE_ALLOW_CIDRS', { REMOTE_IMAGE_ALLOW_CIDRS: '10.0.0.0' }],
  ['REMOTE_IMAGE_ALLOW_CIDRS', { REMOTE_IMAGE_ALLOW_CIDRS: 'localhost/8' }],
  ['LOG_LEVEL', { LOG_LEVEL: 'loud' }],
  ['RATE_LIMIT_REQUESTS', { RATE_LIMIT_REQUESTS: '0' }],
  ['RATE_LIMIT_WINDOW_SECONDS', { RATE_LIMIT_WINDOW_SECONDS: 'soon' }],
  ['REDIS_URL', { RATE_LIMIT_STORE: 'redis' }],
  ['REDIS_URL', { RATE_LIMIT_STORE: 'redis', REDIS_URL: 'http://127.0.0.1:6379' }],
  // ioredis would take these as client options over the service's fail-closed ones (R20, R33).
  ['REDIS_URL', { RATE_LIMIT_STORE: 'redis', REDIS_URL: 'redis://127.0.0.1:6379/0?enableOfflineQueue=true&commandTimeout=60000' }],
  ['REDIS_URL', { RATE_LIMIT_STORE: 'redis', REDIS_URL: 'rediss://cache.example:6380?family=5' }],
  ['DATABASE_URL', { DATABASE_URL: 'postgres://app:p\r\nw@db.example/ers' }],
  // R48: a CA names TLS; with redis:// the password would go in plain text.
  ['REDIS_TLS_CA', { RATE_LIMIT_STORE: 'redis', REDIS_URL: 'redis://:secret@127.0.0.1:6379', REDIS_TLS_CA: '/etc/ers/redis-ca.pem' }],
  ['GEMINI_BASE_URL', { GEMINI_BASE_URL: 'ftp://gateway.example' }],
  // fetch refuses a URL with credentials: every generation would be 502.
  ['GEMINI_BASE_URL', { GEMINI_BASE_URL: 'https://gateway-user:gateway-secret@gateway.example' }],
  // The SDK appends /v1beta/models/... to it: a query would sit in the middle of the path.
  ['GEMINI_BASE_URL', { GEMINI_BASE_URL: 'https://gateway.example/?key=abc' }],
  // fetch refuses "bad ports" before connecting (Fetch Standard): every generation would fail.
  ['GEMINI_BASE_URL', { GEMINI_BASE_URL: 'http://127.0.0.1:6000' }],
  ['GEMINI_BASE_URL', { GEMINI_BASE_URL: 'https://gateway.example:22/v1' }],
  ['DB_STATEMENT_TIMEOUT_MS', { DB_STATEMENT_TIMEOUT_MS: '0' }],
  ['SHUTDOWN_DRAIN_MS', { SHUTDOWN_DRAIN_MS: '-1' }],
  ['LISTEN_BACKLOG', { LISTEN_BACKLOG: 'deep' }],
  ['IMAGE_MAX_PIXELS', { IMAGE_MAX_PIXELS: '1e9x' }],
  ['METRICS_PORT', { METRICS_PORT: '65536' }],
  ['OTEL_EXPORTER_OTLP_ENDPOINT', { OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }],
  ['IMAGE_ALLOWED_PORTS', { IMAGE_ALLOWED_PORTS: '8443,70000' }],
  ['IMAGE_ALLOWED_PORTS', { IMAGE_ALLOWED_PORTS: 'https' }],
];

describe('configuration values (operator-interface.md)', () => {
  for (const [variable, env] of BAD) {
    it(`${JSON.stringify(env)} is refused with one line naming ${variable}`, () => {
      let error: unknown;
      try {
        loadConfig(env);
      } catch (caught) {
        error = caught;
      }
      expect(error).to.be.instanceOf(ConfigError);
      const message = (error as ConfigError).message;
      expect(message).to.include(variable);
      expect(message).to.not.include('\n');
      expect(message, 'the value is never echoed (R26)').to.not.include('gateway-secret');
      for (const password of urlPasswords(Object.values(env))) expect(message, 'a password reached the message (R26)').not.to.include(password);
    });
  }

  it('an empty environment gives the documented defaults (operator-interface.md)', () => {
    const config = loadConfig({});
    expect(config).to.include({
      port: 8080,
      host: '127.0.0.1',
      databaseUrl: undefined,
      dataDir: './.data',
      reportGenerator: 'offline',
      generatorTimeoutMs: 30_000,
      rateLimitRequests: 60,
      rateLimitWindowSeconds: 60,
      rateLimitStore: 'postgres',
      idempotencyRetentionHours: 24,
      imageMaxBytes: 10_485_760,
      imageFetchTimeoutMs: 5_000,
      imageMaxRedirects: 3,
      imageMaxCount: 8,
      evidenceTextMaxChars: 20_000,
      // The variables of the second round (R33 to R41).
      dbConnectTimeoutMs: 2_000,
      dbStatementTimeoutMs: 5_000,
      shutdownDrainMs: 0,
      listenBacklog: 4096,
      idempotencySweepIntervalSeconds: 300,
      imageMaxDimension: 2048,
      imageMaxPixels: 40_000_000,
      metricsPort: undefined,
      metricsHost: '127.0.0.1',
      otelExporterOtlpEndpoint: undefined,
      logLevel: 'info',
    });
    expect(config.remoteImageAllowCidrs).to.deep.equal([]);
  });

  it('REPORT_GENERATOR defaults to gemini when GEMINI_API_KEY is set (operator-interface.md, R25)', () => {
    expect(loadConfig({ GEMINI_API_KEY: 'k' }).reportGenerator).to.equal('gemini');
    expect(loadConfig({ GEMINI_API_KEY: 'k', REPORT_GENERATOR: 'offline' }).reportGenerator).to.equal('offline');
  });

  it('REDIS_URL may name password and family in its query (R48), nothing else', () => {
    expect(loadConfig({ RATE_LIMIT_STORE: 'redis', REDIS_URL: 'rediss://cache.example:6380?family=6' }).redisUrl).to.equal('rediss://cache.example:6380?family=6');
    expect(loadConfig({ RATE_LIMIT_STORE: 'redis', REDIS_URL: 'redis://cache.example:6379/2?password=s3cret' }).redisUrl).to.include('password=');
  });

  it('an empty variable counts as unset', () => {
    expect(loadConfig({ PORT: '', DATABASE_URL: '', LOG_LEVEL: '' })).to.include({ port: 8080, databaseUrl: undefined, logLevel: 'info' });
  });

  it('the configuration is frozen', () => {
    const config = loadConfig({ REMOTE_IMAGE_ALLOW_CIDRS: '127.0.0.1/32, ::1/128' });
    expect(Object.isFrozen(config)).to.equal(true);
    expect(Object.isFrozen(config.remoteImageAllowCidrs)).to.equal(true);
    expect(config.remoteImageAllowCidrs).to.deep.equal(['127.0.0.1/32', '::1/128']);
  });
});

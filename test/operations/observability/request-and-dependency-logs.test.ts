// R26, R40, R41: one access line per request with requestId, operation,
// status, error code and duration; a failed dependency is logged once per failed request,
// naming the dependency and a reason from a closed list; and at trace level (every line on)
// no line carries a key, a URL, a connection string or evidence.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { DEPENDENCIES, GENERATOR_REASONS, STORE_REASONS } from '../../../src/observability/dependency-failure.ts';
import { REJECTED_REASONS, UNAVAILABLE_REASONS } from '../../../src/images/image-fetch-error.ts';
import { createKey } from '../../../src/admin/keys.ts';
import { createCustomerFixture, proxyToTestDatabase, testDatabaseUrl, testEm } from '../../support/database.ts';
import { client, send, type TestResponse } from '../../support/http-client.ts';
import { startTcpProxy, viaProxy, type TcpProxy } from '../../support/tcp-proxy.ts';
import type { TestService } from '../../support/service.ts';
import { errorAnswer, rateLimitedAnswer, reportAnswer, startFakeGemini, type FakeGemini } from '../../support/generation/fake-gemini-server.ts';
import { geminiEnv } from '../../support/e2e/gemini-service.ts';
import { IMAGES, startImageHost } from '../../support/e2e/image-host.ts';
import { startLoggedService, type CapturedLog } from '../../support/e2e/logged-service.ts';
import type { ImageServer } from '../../support/images/image-server.ts';
import { serviceEnv } from '../../support/reports.ts';

const EVIDENCE = `Ceiling stain above flat ${randomBytes(4).toString('hex')}, tenant reports a leak.`;
const REASONS = new Set<string>([...STORE_REASONS, ...GENERATOR_REASONS, ...REJECTED_REASONS, ...UNAVAILABLE_REASONS, 'unexpected']);

type Line = Record<string, unknown>;
const parsed = (log: CapturedLog): Line[] => log.lines.map((l) => JSON.parse(l.raw) as Line);
const ofRequest = (log: CapturedLog, res: TestResponse) => parsed(log).filter((l) => l.requestId === res.headers['x-request-id']);

/** The request's one access line and its one dependency-failure line. */
function failureOf(log: CapturedLog, res: TestResponse, code: string): Line {
  const lines = ofRequest(log, res);
  expect(lines.filter((l) => l.msg === 'request'), 'one access line').to.have.length(1);
  const failures = lines.filter((l) => l.msg === 'dependency failure');
  expect(failures, `one dependency-failure line for ${code}`).to.have.length(1);
  const failure = failures[0] as Line;
  expect(failure.code).to.equal(code);
  expect(DEPENDENCIES).to.include(failure.dependency);
  expect(REASONS.has(String(failure.reason)) || /^http_\d{3}$/.test(String(failure.reason)), `reason ${String(failure.reason)}`).to.equal(true);
  return failure;
}

describe('request and dependency-failure log lines (R26, R40, R41)', function () {
  this.timeout(60_000);
  let gemini: FakeGemini;
  let host: ImageServer;
  let dbProxy: TcpProxy;
  let redisProxy: TcpProxy;
  let service: TestService;
  let redisService: TestService;
  let log: CapturedLog;
  let redisLog: CapturedLog;

  before(async () => {
    gemini = await startFakeGemini();
    host = await startImageHost();
    dbProxy = await proxyToTestDatabase();
    redisProxy = await startTcpProxy('127.0.0.1', 6379);
    const common = { ...geminiEnv(gemini), REMOTE_IMAGE_ALLOW_CIDRS: '127.0.0.1/32', GENERATOR_TIMEOUT_MS: '3000' };
    ({ service, log } = await startLoggedService(
      await serviceEnv({ ...common, DATABASE_URL: viaProxy(testDatabaseUrl(), dbProxy), RATE_LIMIT_STORE: 'memory' }),
      'trace',
    ));
    ({ service: redisService, log: redisLog } = await startLoggedService(
      await serviceEnv({ ...common, RATE_LIMIT_STORE: 'redis', REDIS_URL: `redis://127.0.0.1:${redisProxy.port}` }),
      'trace',
    ));
  });
  after(async () => {
    dbProxy?.restore();
    await service?.close();
    await redisService?.close();
    await dbProxy?.close();
    await redisProxy?.close();
    await gemini?.stop();
    await host?.close();
  });

  it('a success: one access line with requestId, operation, status and duration, no traceId without tracing, no failure line', async () => {
    const customer = await createCustomerFixture();
    const res = await client(service.url, customer.apiKey).createReport({ context: 'damage_report', evidence: { text: EVIDENCE } });
    expect(res.status).to.equal(201);
    const lines = ofRequest(log, res);
    const access = lines.filter((l) => l.msg === 'request');
    expect(access).to.have.length(1);
    expect(access[0]).to.include({ method: 'POST', path: '/v1/evidence/reports', operation: 'createEvidenceReport', status: 201 });
    expect(access[0]?.ms).to.be.a('number');
    expect(access[0]).not.to.have.property('code');
    for (const line of lines) expect(line).not.to.have.property('traceId');
    expect(lines.filter((l) => l.msg === 'dependency failure')).to.have.length(0);
  });

  it('generator, image host, database and rate-limit store failures: each logged once, with its dependency and a closed-list reason', async () => {
    const customer = await createCustomerFixture();
    const api = client(service.url, customer.apiKey);

    // The primary and the fallback of the default GEMINI_MODEL, and the fallback's one retry (R42).
    gemini.enqueue(errorAnswer(503), errorAnswer(503), errorAnswer(503));
    const generator = await api.createReport({ context: 'damage_report', evidence: { text: EVIDENCE } });
    expect(failureOf(log, generator, 'report_generation_unavailable')).to.include({ dependency: 'generator', reason: 'http_503' });

    const image = await api.createReport({ context: 'damage_report', evidence: { text: EVIDENCE, images: [{ url: host.url('/status-503.png') }] } });
    expect(failureOf(log, image, 'remote_evidence_image_unavailable')).to.include({ dependency: 'image_host', reason: 'http_status' });

    dbProxy.cut();
    const database = await api.createReport({ context: 'damage_report', evidence: { text: EVIDENCE } });
    dbProxy.restore();
    expect(failureOf(log, database, 'api_key_authentication_unavailable')).to.include({ dependency: 'database', reason: 'connection' });

    const other = await createCustomerFixture();
    redisProxy.cut();
    const store = await client(redisService.url, other.apiKey).createReport({ context: 'damage_report', evidence: { text: EVIDENCE } });
    redisProxy.restore();
    expect(failureOf(redisLog, store, 'rate_limit_unavailable')).to.include({ dependency: 'rate_limit_store', reason: 'connection' });
    const access = ofRequest(redisLog, store).find((l) => l.msg === 'request');
    expect(access).to.include({ operation: 'createEvidenceReport', status: 503, code: 'rate_limit_unavailable' });
  });

  it('the generator\'s retry and fallback lines carry the requestId of the request they serve (R41, R42)', async () => {
    const customer = await createCustomerFixture();
    // The primary: a 429 with a delay that fits (retried on it), then a 503 (on to the fallback).
    gemini.enqueue(rateLimitedAnswer('0.1s'), errorAnswer(503), reportAnswer());
    const res = await client(service.url, customer.apiKey).createReport({ context: 'damage_report', evidence: { text: EVIDENCE } });
    expect(res.status).to.equal(201);
    const messages = ofRequest(log, res).map((l) => l.msg);
    expect(messages).to.include('report generation rate-limited, retrying after RetryInfo delay');
    expect(messages).to.include('report generation falling back to the next model of GEMINI_MODEL');
    const generatorLines = parsed(log).filter((l) => String(l.msg).startsWith('report generation'));
    expect(generatorLines.filter((l) => typeof l.requestId !== 'string'), 'every such line names its request').to.deep.equal([]);
  });

  it('a test key\'s triggered 503 is no outage: no dependency-failure line, one test-mode trigger line, and its access line says mode test (R53)', async () => {
    const customer = await createCustomerFixture();
    const { apiKey } = await createKey(await testEm(), { customerId: customer.customerId, mode: 'test' });
    const res = await client(service.url, apiKey).createReport({ context: 'damage_report', evidence: { text: 'CI ers_test_trigger:evidence_report_write_failed' } });
    expect(res.status).to.equal(503);
    const lines = ofRequest(log, res);
    expect(lines.filter((l) => l.msg === 'dependency failure')).to.have.length(0);
    const triggers = lines.filter((l) => l.msg === 'test-mode trigger');
    expect(triggers).to.have.length(1);
    expect(triggers[0]).to.include({ level: 30, code: 'evidence_report_write_failed', mode: 'test' });
    expect(lines.find((l) => l.msg === 'request')).to.include({ status: 503, code: 'evidence_report_write_failed', mode: 'test' });
    // A live key's request carries no mode field.
    const live = await client(service.url, customer.apiKey).createReport({ context: 'damage_report', evidence: { text: EVIDENCE } });
    expect(ofRequest(log, live).find((l) => l.msg === 'request')).not.to.have.property('mode');
  });

  it('an access line names an operation by its contract path, not the report id, and a key put in a path is never logged (R26)', async () => {
    const customer = await createCustomerFixture();
    const api = client(service.url, customer.apiKey);
    const created = await api.createReport({ context: 'damage_report', evidence: { text: EVIDENCE } });
    const id = (created.body as { id: string }).id;
    const read = await send(service.url, 'GET', `/v1/evidence/reports/${id}`, { headers: { 'x-api-key': customer.apiKey } });
    expect(read.status).to.equal(200);
    expect(ofRequest(log, read).find((l) => l.msg === 'request')).to.include({ path: '/v1/evidence/reports/{id}', operation: 'getEvidenceReport' });
    // A client that put its key where the id goes, or in a path of its own.
    const misplaced = await send(service.url, 'GET', `/v1/evidence/reports/${customer.apiKey}`, { headers: { 'x-api-key': customer.apiKey } });
    expect(misplaced.status).to.equal(404);
    expect(ofRequest(log, misplaced).find((l) => l.msg === 'request')).to.include({ path: '/v1/evidence/reports/{id}' });
    const unknown = await send(service.url, 'GET', `/v1/keys/${customer.apiKey}/x`);
    expect(unknown.status).to.equal(404);
    expect(ofRequest(log, unknown).find((l) => l.msg === 'request')).to.include({ path: '/v1/keys/ers_live_[redacted]/x' });
    expect(log.text()).not.to.include(customer.apiKey);
    expect(log.text()).not.to.include(id);
  });

  it('at trace level no line carries a key, a URL, a connection string or the evidence', async () => {
    const customer = await createCustomerFixture();
    const api = client(service.url, customer.apiKey);
    await api.createReport({ context: 'damage_report', evidence: { text: EVIDENCE, images: [{ url: host.url(IMAGES.png.path) }] } });
    const text = `${log.text()}\n${redisLog.text()}`;
    expect(log.lines.some((l) => l.level <= 20), 'debug and trace lines are on').to.equal(true);
    const secrets = [
      customer.apiKey,
      service.config.geminiApiKey!,
      host.url(IMAGES.png.path),
      host.url('/status-503.png'),
      `127.0.0.1:${host.port}`,
      gemini.baseUrl,
      viaProxy(testDatabaseUrl(), dbProxy),
      testDatabaseUrl(),
      `redis://127.0.0.1:${redisProxy.port}`,
      EVIDENCE,
    ];
    for (const secret of secrets) expect(text, `the log carries ${secret}`).not.to.include(secret);
  });
});

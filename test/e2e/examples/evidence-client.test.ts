// The example client (examples/evidence-client.ts) against the real service,
// through each path of the contract's retry guidance: success, 503 retried with backoff under
// one Idempotency-Key, a rate-limit 429 retried after Retry-After, and no retry for a quota 429
// (details.resetAt surfaced), a 409 or another 4xx; every answer's requestId kept. The client's
// requests are observed through the fetch it is given (the network as the service sees it).
import { expect } from 'chai';
import { createEvidenceClient, EvidenceApiError, type RetryEvent } from '../../../examples/evidence-client.ts';
import { FakeReportGenerator } from '../../../src/generation/fake-report-generator.ts';
import { GenerationError, type GenerationInput, type GenerationOutput, type ReportGenerator } from '../../../src/generation/report-generator.ts';
import { createCustomerFixture } from '../../support/database.ts';
import { freePort } from '../../support/haproxy.ts';
import { unknownApiKey } from '../../support/auth-cases.ts';
import { startTestService, type TestService } from '../../support/service.ts';
import { customerTotals, serviceEnv } from '../../support/reports.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const BODY = { context: 'property_maintenance', evidence: { text: 'Water is dripping from the hallway ceiling.' } } as const;
const FAST = { baseDelayMs: 20, maxDelayMs: 200 };

/** Unavailable (503 report_generation_unavailable) for the next `failures` calls, then healthy. */
class FlakyGenerator implements ReportGenerator {
  failures = 0;
  readonly #healthy = new FakeReportGenerator();
  generate(input: GenerationInput, signal?: AbortSignal): Promise<GenerationOutput> {
    if (this.failures > 0) {
      this.failures -= 1;
      return Promise.reject(new GenerationError('unavailable', 'test outage'));
    }
    return this.#healthy.generate(input, signal);
  }
}

/** A fetch that records each request's Idempotency-Key and each answer's status and x-request-id. */
function recordingFetch() {
  const sent: { key: string | null; status: number; requestId: string | null; at: number }[] = [];
  const fetchAndRecord: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    const response = await fetch(request);
    sent.push({ key: request.headers.get('idempotency-key'), status: response.status, requestId: response.headers.get('x-request-id'), at: Date.now() });
    return response;
  };
  return { sent, fetch: fetchAndRecord };
}

async function rejection(promise: Promise<unknown>): Promise<EvidenceApiError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof EvidenceApiError) return error;
    throw error;
  }
  throw new Error('expected an EvidenceApiError');
}

describe('the example client follows the retry guidance against the real service', function () {
  this.timeout(60_000);
  const generator = new FlakyGenerator();
  let service: TestService;
  let limited: TestService;

  before(async () => {
    service = await startTestService(await serviceEnv(), { generator });
    // One request per 1-second window: the second request of a window is a rate-limit 429.
    limited = await startTestService(await serviceEnv({ RATE_LIMIT_REQUESTS: '1', RATE_LIMIT_WINDOW_SECONDS: '1', RATE_LIMIT_STORE: 'memory' }));
  });
  after(async () => {
    await service?.close();
    await limited?.close();
  });

  it('success: one attempt with a fresh Idempotency-Key, the report and its requestId (= x-request-id)', async () => {
    const customer = await createCustomerFixture();
    const { sent, fetch } = recordingFetch();
    const client = createEvidenceClient({ baseUrl: service.url, apiKey: customer.apiKey, fetch });
    const first = await client.createReport(BODY);
    const second = await client.createReport(BODY);
    expect(first).to.include({ attempts: 1, replayed: false });
    expect(first.data.status).to.equal('completed');
    expect(first.requestId).to.match(UUID).and.equal(sent[0]?.requestId);
    expect(sent.map((s) => s.key)).to.have.length(2).and.satisfy((keys: string[]) => keys.every((k) => UUID.test(k)));
    expect(sent[0]?.key, 'a new logical request gets a new key').not.to.equal(sent[1]?.key);
    expect(second.data.id).not.to.equal(first.data.id);
    const usage = await client.currentUsage();
    expect(usage.data.usage[0]).to.include({ used: 2 });
  });

  it('503: retried with bounded, growing, jittered backoff under the same key until it succeeds; one report, one unit', async () => {
    const customer = await createCustomerFixture();
    const { sent, fetch } = recordingFetch();
    const retries: RetryEvent[] = [];
    const client = createEvidenceClient({ baseUrl: service.url, apiKey: customer.apiKey, fetch, retry: FAST, onRetry: (e) => retries.push(e) });
    generator.failures = 3;
    const answer = await client.createReport(BODY);
    expect(answer.attempts).to.equal(4);
    expect(sent.map((s) => s.status)).to.deep.equal([503, 503, 503, 201]);
    expect(new Set(sent.map((s) => s.key)).size, 'one key for every attempt').to.equal(1);
    expect(retries.map((r) => r.reason)).to.deep.equal(Array(3).fill('503 report_generation_unavailable'));
    retries.forEach((retry, i) => expect(retry.delayMs, `delay ${i + 1}`).to.be.at.least(0).and.below(Math.min(FAST.maxDelayMs, FAST.baseDelayMs * 2 ** i)));
    expect(retries.map((r) => r.requestId)).to.deep.equal(sent.slice(0, 3).map((s) => s.requestId));
    expect(await customerTotals(customer.customerId)).to.deep.equal({ reports: 1, units: 1, claims: 0 });
  });

  it('503 that lasts: gives up after maxAttempts with the last code and requestId; nothing stored', async () => {
    const customer = await createCustomerFixture();
    const { sent, fetch } = recordingFetch();
    const client = createEvidenceClient({ baseUrl: service.url, apiKey: customer.apiKey, fetch, retry: { ...FAST, maxAttempts: 3 } });
    generator.failures = 100;
    const error = await rejection(client.createReport(BODY));
    generator.failures = 0;
    expect(error).to.include({ status: 503, code: 'report_generation_unavailable', attempts: 3 });
    expect(error.requestId).to.equal(sent[2]?.requestId);
    expect(new Set(sent.map((s) => s.key)).size).to.equal(1);
    expect(await customerTotals(customer.customerId)).to.deep.equal({ reports: 0, units: 0, claims: 0 });
  });

  it('429 rate_limit_exceeded: waits Retry-After, then retries under the same key and succeeds', async () => {
    const customer = await createCustomerFixture();
    const { sent, fetch } = recordingFetch();
    const retries: RetryEvent[] = [];
    const client = createEvidenceClient({ baseUrl: limited.url, apiKey: customer.apiKey, fetch, onRetry: (e) => retries.push(e) });
    // Both in one window (the first may land at a window's end: then it takes a third try).
    const [, second] = await Promise.all([client.createReport(BODY), client.createReport({ ...BODY, language: 'en' })]);
    const limitedKey = sent.find((s) => s.status === 429)?.key;
    expect(limitedKey, 'one request was rate-limited').to.be.a('string');
    const attemptsOfKey = sent.filter((s) => s.key === limitedKey);
    expect(attemptsOfKey.at(-1)?.status).to.equal(201);
    expect(retries.length).to.be.at.least(1);
    for (const retry of retries) expect(retry).to.include({ reason: '429 rate_limit_exceeded', delayMs: 1000 });
    // Never sooner than Retry-After (1 s here).
    expect((attemptsOfKey.at(-1)?.at ?? 0) - (attemptsOfKey[0]?.at ?? 0)).to.be.at.least(950);
    expect(second.data.status).to.equal('completed');
  });

  it('429 quota_exceeded: not retried; the error carries details.resetAt and the requestId', async () => {
    const customer = await createCustomerFixture({ monthlyLimit: 1 });
    const { sent, fetch } = recordingFetch();
    const client = createEvidenceClient({ baseUrl: service.url, apiKey: customer.apiKey, fetch, retry: FAST });
    await client.createReport(BODY);
    const error = await rejection(client.createReport(BODY));
    expect(error).to.include({ status: 429, code: 'quota_exceeded', attempts: 1 });
    expect(sent).to.have.length(2);
    const now = new Date();
    expect(error.resetAt).to.equal(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString());
    expect(error.requestId).to.match(UUID).and.equal(sent[1]?.requestId);
  });

  it('409 idempotency_conflict: the same key with another request is not retried', async () => {
    const customer = await createCustomerFixture();
    const { sent, fetch } = recordingFetch();
    const client = createEvidenceClient({ baseUrl: service.url, apiKey: customer.apiKey, fetch, retry: FAST });
    const key = crypto.randomUUID();
    await client.createReport(BODY, key);
    const replay = await client.createReport(BODY, key);
    expect(replay.replayed, 'the same request under its key is replayed').to.equal(true);
    const error = await rejection(client.createReport({ ...BODY, language: 'de' }, key));
    expect(error).to.include({ status: 409, code: 'idempotency_conflict', attempts: 1 });
    expect(sent).to.have.length(3);
  });

  it('another 4xx (401 invalid_api_key) is not retried', async () => {
    const { sent, fetch } = recordingFetch();
    const client = createEvidenceClient({ baseUrl: service.url, apiKey: unknownApiKey(), fetch, retry: FAST });
    const error = await rejection(client.currentUsage());
    expect(error).to.include({ status: 401, code: 'invalid_api_key', attempts: 1 });
    expect(sent).to.have.length(1);
  });

  it('no answer at all (the connection refused): retried under the same key, and the retry makes the one report (R11, R13)', async () => {
    const customer = await createCustomerFixture();
    const { sent, fetch: recording } = recordingFetch();
    // The first attempt goes to a port where nothing listens: a real ECONNREFUSED, as undici throws it.
    const refused = await freePort();
    const keys: (string | null)[] = [];
    let calls = 0;
    const fetchOnce: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      keys.push(request.headers.get('idempotency-key'));
      calls += 1;
      if (calls === 1) return fetch(new Request(request.url.replace(new URL(service.url).host, `127.0.0.1:${refused}`), request));
      return recording(request);
    };
    const retries: RetryEvent[] = [];
    const answer = await createEvidenceClient({ baseUrl: service.url, apiKey: customer.apiKey, fetch: fetchOnce, retry: FAST, onRetry: (e) => retries.push(e) }).createReport(BODY);
    expect(answer.attempts).to.equal(2);
    expect(retries.map((r) => r.reason)).to.deep.equal(['network']);
    expect(keys).to.have.length(2);
    expect(keys[0], 'the same key on the retry').to.equal(keys[1]).and.to.match(UUID);
    expect(sent.map((x) => x.status)).to.deep.equal([201]);
    expect(await customerTotals(customer.customerId)).to.deep.equal({ reports: 1, units: 1, claims: 0 });
  });

  it('the backoff is full jitter under a growing cap: each wait below min(cap, base x 2^(n-1)), spread over it, and the caps grow', async () => {
    // Answers made here, not by the service: 20 runs of 7 attempts each, every answer a 503.
    const unavailable: typeof fetch = async () =>
      new Response(JSON.stringify({ error: { code: 'report_generation_unavailable', message: 'The report generator is temporarily unavailable.', requestId: 'r' } }), {
        status: 503,
        headers: { 'content-type': 'application/json' },
      });
    const retry = { baseDelayMs: 4, maxDelayMs: 48, maxAttempts: 7 };
    const waits: number[][] = Array.from({ length: retry.maxAttempts - 1 }, () => []);
    for (let run = 0; run < 20; run++) {
      const client = createEvidenceClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'k', fetch: unavailable, retry, onRetry: (e) => waits[e.attempt - 1]?.push(e.delayMs) });
      expect((await rejection(client.createReport(BODY))).attempts).to.equal(retry.maxAttempts);
    }
    waits.forEach((delays, i) => {
      const cap = Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** i);
      expect(delays, `retry ${i + 1}`).to.have.length(20);
      for (const delay of delays) expect(delay, `retry ${i + 1}`).to.be.at.least(0).and.below(cap);
      // Twenty uniform draws all in the lower half: a chance of 2^-20.
      if (cap >= 8) expect(Math.max(...delays), `retry ${i + 1} spreads over its cap ${cap}`).to.be.at.least(cap / 2);
      if (cap >= 8) expect(new Set(delays).size, `retry ${i + 1} is jittered`).to.be.above(1);
    });
  });
});

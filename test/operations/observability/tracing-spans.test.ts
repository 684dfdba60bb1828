// R41: with OTEL_EXPORTER_OTLP_ENDPOINT set, each API request is one trace exported over
// OTLP/HTTP (here OTLP/JSON, OTEL_EXPORTER_OTLP_PROTOCOL=http/json) to a local receiver: a
// server span, a span per pipeline step that ran (`ers.step.<label>`), client spans for the
// database statements, the image fetch and the generator; an incoming W3C traceparent is
// continued; every log line of a request carries its traceId; and no attribute carries an
// identifier, a key, a URL or evidence.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { STEP_LABELS, type StepLabel } from '../../../src/observability/step-labels.ts';
import { createCustomerFixture, type CustomerFixture } from '../../support/database.ts';
import { client, type TestResponse } from '../../support/http-client.ts';
import { errorAnswer, startFakeGemini, type FakeGemini } from '../../support/generation/fake-gemini-server.ts';
import { IMAGES, startImageHost } from '../../support/e2e/image-host.ts';
import type { ImageServer } from '../../support/images/image-server.ts';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../../support/observability/otlp-receiver.ts';
import { startTracedService, type TracedService } from '../../support/observability/traced-service.ts';

const SERVER = 2;
const CLIENT = 3;
const INTERNAL = 1;
const ERROR = 2;
const EVIDENCE = 'Water is dripping from the hallway ceiling next to elevator 7, tenant Ms Example.';
const through = (last: StepLabel) => STEP_LABELS.slice(0, STEP_LABELS.indexOf(last) + 1).map((l) => `ers.step.${l}`);

describe('traces over OTLP/HTTP (R41)', function () {
  this.timeout(60_000);
  let receiver: OtlpReceiver;
  let gemini: FakeGemini;
  let host: ImageServer;
  let service: TracedService;
  const customers: CustomerFixture[] = [];
  const responses: TestResponse[] = [];
  const idempotencyKeys: string[] = [];

  const customer = async (input: Parameters<typeof createCustomerFixture>[0] = {}) => {
    const created = await createCustomerFixture(input);
    customers.push(created);
    return created;
  };
  const post = async (who: CustomerFixture, body: unknown, headers: Record<string, string> = {}) => {
    const res = await client(service.url, who.apiKey).createReport(body, headers);
    responses.push(res);
    if (headers['Idempotency-Key']) idempotencyKeys.push(headers['Idempotency-Key']);
    return res;
  };

  /** The trace id the service logged for this response (its access line). */
  async function traceIdOf(res: TestResponse): Promise<string> {
    const requestId = res.headers['x-request-id'];
    for (let i = 0; i < 200; i++) {
      const line = service.logLines().find((l) => l.msg === 'request' && l.requestId === requestId);
      if (line) return String(line.traceId);
      await sleep(25);
    }
    throw new Error(`no access line for request ${String(requestId)}`);
  }

  /** The spans of the response's trace, once its server span (the last to end) has arrived. */
  async function spansOf(res: TestResponse): Promise<ReceivedSpan[]> {
    const traceId = await traceIdOf(res);
    await receiver.waitFor((spans) => spans.some((s) => s.traceId === traceId && s.kind === SERVER));
    await sleep(100); // a straggler of the same batch (the key's last-use touch ends after the answer)
    return receiver.trace(traceId);
  }
  const steps = (spans: ReceivedSpan[]) => spans.filter((s) => s.name.startsWith('ers.step.')).map((s) => s.name);
  const only = (spans: ReceivedSpan[], name: string) => {
    const found = spans.filter((s) => s.name === name);
    expect(found, name).to.have.length(1);
    return found[0] as ReceivedSpan;
  };

  before(async () => {
    receiver = await startOtlpReceiver();
    gemini = await startFakeGemini();
    host = await startImageHost();
    service = await startTracedService(gemini, {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '50',
    });
  });
  after(async () => {
    if (service) expect(await service.stop(), 'exit code after SIGTERM').to.equal(0);
    await receiver?.close();
    await gemini?.stop();
    await host?.close();
  });

  it('a successful POST: one trace, a server span, steps 1 to 11 in order, client spans for statements, the image fetch and Gemini', async () => {
    const key = randomUUID();
    const who = await customer();
    const res = await post(who, { context: 'damage_report', evidence: { text: EVIDENCE, images: [{ url: host.url(IMAGES.png.path) }] } }, { 'Idempotency-Key': key });
    expect(res.status).to.equal(201);
    const spans = await spansOf(res);

    const server = only(spans, 'POST /v1/evidence/reports');
    expect(server.kind).to.equal(SERVER);
    expect(server.parentSpanId, 'a new trace: the server span is its root').to.equal(undefined);
    expect(server.attributes).to.include({ 'http.request.method': 'POST', 'http.route': '/v1/evidence/reports', 'http.response.status_code': 201, 'ers.operation': 'createEvidenceReport' });
    expect(server.status).not.to.equal(ERROR);
    expect(server.resource['service.name']).to.equal('evidence-report-service');

    expect(steps(spans)).to.deep.equal(STEP_LABELS.map((l) => `ers.step.${l}`));
    for (const step of spans.filter((s) => s.name.startsWith('ers.step.'))) {
      expect(step.kind, step.name).to.equal(INTERNAL);
      expect(step.parentSpanId, `${step.name} is a child of the server span`).to.equal(server.spanId);
      expect(step.status, step.name).not.to.equal(ERROR);
    }
    const stepId = (label: StepLabel) => only(spans, `ers.step.${label}`).spanId;

    const statements = spans.filter((s) => s.name.startsWith('ers.db.'));
    // Step 1's one read brings the facts of steps 4 and 6: those two send nothing.
    expect(statements.map((s) => s.name)).to.include.members(['ers.db.caller_facts', 'ers.db.idempotency_claim', 'ers.db.record_evidence_report']);
    for (const statement of statements) {
      expect(statement.kind, statement.name).to.equal(CLIENT);
      expect(statement.attributes['db.system.name']).to.equal('postgresql');
      expect(Object.keys(statement.attributes).sort(), 'the name of the statement, never its text or parameters').to.deep.equal(['db.operation.name', 'db.system.name']);
    }
    expect(only(spans, 'ers.db.caller_facts').parentSpanId).to.equal(stepId('1_authenticate'));
    expect(only(spans, 'ers.db.idempotency_claim').parentSpanId).to.equal(stepId('5_idempotency'));
    expect(only(spans, 'ers.db.record_evidence_report').parentSpanId).to.equal(stepId('9_10_persist'));

    const fetch = only(spans, 'ers.image_fetch');
    expect(fetch.kind).to.equal(CLIENT);
    expect(fetch.parentSpanId).to.equal(stepId('7_fetch_images'));
    expect(fetch.attributes).to.deep.equal({ 'ers.image.count': 1, 'ers.image.outcome': 'accepted' });

    const generate = only(spans, 'ers.generate');
    expect(generate.kind).to.equal(CLIENT);
    expect(generate.parentSpanId).to.equal(stepId('8_generate'));
    expect(generate.attributes).to.deep.equal({ 'ers.generator': 'gemini', 'ers.generation.outcome': 'ok' });
  });

  it('a replay ends at step 5: steps 6 to 11 are absent (R13), no image fetch, no generation', async () => {
    const key = randomUUID();
    const who = await customer();
    const body = { context: 'field_inspection', evidence: { text: EVIDENCE } };
    expect((await post(who, body, { 'Idempotency-Key': key })).status).to.equal(201);
    const replay = await post(who, body, { 'Idempotency-Key': key });
    expect(replay.headers['idempotent-replayed']).to.equal('true');
    const spans = await spansOf(replay);
    expect(steps(spans)).to.deep.equal(through('5_idempotency'));
    expect(spans.map((s) => s.name)).not.to.include.members(['ers.image_fetch', 'ers.generate', 'ers.db.record_evidence_report']);
    // The stored result comes with the key's read: one statement after the claim.
    expect(only(spans, 'ers.db.idempotency_read').parentSpanId).to.equal(only(spans, 'ers.step.5_idempotency').spanId);
  });

  it('a quota rejection stops at step 6, which is marked failed with its code; the server span is not an error (a 4xx)', async () => {
    const who = await customer({ monthlyLimit: 1 });
    expect((await post(who, { context: 'field_inspection', evidence: { text: EVIDENCE } })).status).to.equal(201);
    const rejected = await post(who, { context: 'field_inspection', evidence: { text: `${EVIDENCE} Again.` } });
    expect(rejected.status).to.equal(429);
    const spans = await spansOf(rejected);
    expect(steps(spans)).to.deep.equal(through('6_quota'));
    const quota = only(spans, 'ers.step.6_quota');
    expect(quota.status).to.equal(ERROR);
    expect(quota.attributes['error.type']).to.equal('quota_exceeded');
    const server = spans.find((s) => s.kind === SERVER)!;
    expect(server.attributes).to.include({ 'http.response.status_code': 429, 'ers.error_code': 'quota_exceeded' });
    expect(server.status).not.to.equal(ERROR);
  });

  it('a generator failure stops at step 8: the Gemini client span and the step fail, the server span is an error (503)', async () => {
    const who = await customer();
    // The primary and the fallback of the default GEMINI_MODEL, and the fallback's one retry (R42).
    gemini.enqueue(errorAnswer(503), errorAnswer(503), errorAnswer(503));
    const failed = await post(who, { context: 'field_inspection', evidence: { text: EVIDENCE } });
    expect(failed.status).to.equal(503);
    const spans = await spansOf(failed);
    expect(steps(spans)).to.deep.equal(through('8_generate'));
    const generate = only(spans, 'ers.generate');
    expect(generate.status).to.equal(ERROR);
    expect(generate.attributes).to.deep.equal({ 'ers.generator': 'gemini', 'ers.generation.outcome': 'unavailable', 'error.type': 'unavailable' });
    expect(only(spans, 'ers.step.8_generate').attributes['error.type']).to.equal('report_generation_unavailable');
    const server = spans.find((s) => s.kind === SERVER)!;
    expect(server.status).to.equal(ERROR);
    expect(server.attributes).to.include({ 'http.response.status_code': 503, 'error.type': 'report_generation_unavailable' });
  });

  it('an incoming W3C traceparent is continued: same trace id, the caller\'s span as parent, and the logs carry it', async () => {
    const who = await customer();
    const traceId = randomUUID().replace(/-/g, '');
    const parent = randomUUID().replace(/-/g, '').slice(0, 16);
    const res = await client(service.url, who.apiKey).currentUsage({ traceparent: `00-${traceId}-${parent}-01` });
    responses.push(res);
    expect(res.status).to.equal(200);
    expect(await traceIdOf(res)).to.equal(traceId);
    const spans = await receiver.trace(traceId, 3);
    const server = only(spans, 'GET /v1/usage/current');
    expect(server.parentSpanId).to.equal(parent);
    expect(steps(spans)).to.deep.equal(['ers.step.1_authenticate']);
  });

  it('every log line of a request carries its requestId and the traceId of its trace', async () => {
    const lines = service.logLines();
    for (const res of responses) {
      const requestId = String(res.headers['x-request-id']);
      const ofRequest = lines.filter((l) => l.requestId === requestId);
      expect(ofRequest.length, `lines of ${requestId}`).to.be.greaterThan(0);
      const traceId = await traceIdOf(res);
      expect(traceId).to.match(/^[0-9a-f]{32}$/);
      for (const line of ofRequest) expect(line.traceId, JSON.stringify(line)).to.equal(traceId);
    }
    const failure = lines.find((l) => l.msg === 'dependency failure');
    expect(failure, 'the generator failure was logged').to.include({ dependency: 'generator', reason: 'http_503' });
  });

  it('no span carries an identifier, a key, a URL or evidence: every name and attribute of every span received is scanned', async () => {
    const spans = receiver.spans;
    expect(spans.length).to.be.greaterThan(40);
    const reportIds = responses.map((r) => (r.body as { id?: string }).id).filter((id): id is string => typeof id === 'string');
    expect(reportIds.length).to.be.greaterThan(0);
    const forbidden = [
      ...customers.flatMap((c) => [c.customerId, c.apiKeyId, c.apiKey, c.apiKey.slice(9, 25)]),
      ...reportIds,
      ...responses.map((r) => String(r.headers['x-request-id'])),
      ...idempotencyKeys,
      host.url(IMAGES.png.path),
      IMAGES.png.path,
      `127.0.0.1:${host.port}`,
      String(host.port),
      gemini.baseUrl,
      service.geminiKey,
      EVIDENCE,
      'hallway ceiling',
      'Ms Example',
    ];
    const text = JSON.stringify(spans.map((s) => ({ name: s.name, attributes: s.attributes, resource: s.resource, status: s.statusMessage })));
    for (const value of forbidden) expect(text, `a span carries ${value}`).not.to.include(value);
    // Values come from closed lists: names and strings are short tokens, never free text.
    for (const span of spans) {
      for (const [key, value] of Object.entries(span.attributes)) {
        if (typeof value === 'string') expect(value, `${span.name} ${key}`).to.match(/^[A-Za-z0-9_./ -]{1,64}$/);
      }
    }
  });
});

// R52: a saturated instance refuses before the application runs, with 503 and Retry-After; the
// refusal is written at the end of the event-loop turn with the turn's other answers
// (src/http/end-of-turn.ts), and a client that went away meanwhile is written nothing.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { expect } from 'chai';
import pino from 'pino';
import { AdmissionControl } from '../../../src/http/admission-control.ts';
import { edgeListener, routedPath } from '../../../src/http/edge.ts';
import { noopTelemetry } from '../../../src/observability/telemetry.ts';

/** The part of a ServerResponse the edge uses, recording what was written. */
function fakeResponse() {
  const written: { status?: number; headers?: Record<string, unknown>; set?: Record<string, unknown>; body?: string } = {};
  const res = {
    destroyed: false,
    setHeader(name: string, value: unknown) {
      written.set = { ...written.set, [name]: value };
      return res;
    },
    once: () => res,
    writeHead(status: number, headers: Record<string, unknown>) {
      written.status = status;
      written.headers = headers;
      return res;
    },
    end(body: string) {
      written.body = body;
      return res;
    },
  };
  return { res, written };
}

/** The edge in front of `handle`, as the service builds it, without telemetry or logs. */
function edgeFor(admission: AdmissionControl, handle: (req: IncomingMessage) => Promise<void>, draining: () => boolean = () => false) {
  return edgeListener({ handle, admission, draining, telemetry: noopTelemetry, logger: pino({ level: 'silent' }), responseTimeoutMs: 1_000 });
}

/** Work that never ends, so a started request holds its place for good (as behind a stalled database); it notes each request's URL. */
function endlessWork(handled: string[]): (req: IncomingMessage) => Promise<void> {
  return (req) => {
    handled.push(String(req.url));
    return new Promise<void>(() => {});
  };
}

describe('the edge sheds a saturated instance at the end of the turn (R52)', () => {
  const admission = new AdmissionControl({ maxQueueMs: 1, maxConcurrency: 1 });
  after(() => admission.close());
  const handled: string[] = [];
  let draining = false;
  const listener = edgeFor(admission, endlessWork(handled), () => draining);
  const post = { method: 'POST', url: '/v1/evidence/reports', headers: {} } as IncomingMessage;
  const endOfThisTurn = () => new Promise((resolve) => setImmediate(resolve));

  // One request holds the only place (its work never ends here), so the next is refused.
  before(() => listener(post, fakeResponse().res as unknown as ServerResponse));

  it('a refusal is written after the turn it was decided in: 503, Retry-After, the creation code, and the application never ran', async () => {
    const { res, written } = fakeResponse();
    listener(post, res as unknown as ServerResponse);
    expect(written.status, 'not within the turn').to.equal(undefined);
    await endOfThisTurn();
    expect(written.status).to.equal(503);
    expect(written.headers?.['retry-after']).to.equal('1');
    expect(JSON.parse(written.body as string).error.code).to.equal('report_generation_unavailable');
    expect(handled).to.deep.equal(['/v1/evidence/reports']);
  });

  it('a refusal is logged at debug level with the request id its answer carries, so a client\'s report of it can be found', async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
    const saturated = new AdmissionControl({ maxQueueMs: 1, maxConcurrency: 1 });
    try {
      const edge = edgeListener({ handle: endlessWork([]), admission: saturated, draining: () => false, telemetry: noopTelemetry, logger, responseTimeoutMs: 1_000 });
      edge(post, fakeResponse().res as unknown as ServerResponse);
      const { res, written } = fakeResponse();
      edge(post, res as unknown as ServerResponse);
      await endOfThisTurn();
      expect(written.status).to.equal(503);
      const requestId = written.headers?.['x-request-id'];
      expect(requestId).to.match(/^[0-9a-f-]{36}$/);
      expect(JSON.parse(written.body as string).error.requestId).to.equal(requestId);
      const shedLines = lines.filter((line) => line.msg === 'request shed');
      expect(shedLines).to.have.length(1);
      expect(shedLines[0]).to.include({ requestId, operation: 'createEvidenceReport', code: 'report_generation_unavailable' });
    } finally {
      saturated.close();
    }
  });

  it('a client gone before the end of the turn is written nothing', async () => {
    const { res, written } = fakeResponse();
    listener(post, res as unknown as ServerResponse);
    res.destroyed = true;
    await endOfThisTurn();
    expect(written).to.deep.equal({});
  });

  // Every spelling the router serves as a guarded operation is shed as that operation: the
  // router ignores trailing slashes and Koa reduces an absolute-form target to its path, so a
  // shedder that compared the raw target would let these through to full service.
  for (const [method, url, code] of [
    ['POST', '/v1/evidence/reports/', 'report_generation_unavailable'],
    ['POST', '/v1/evidence/reports//?x=1', 'report_generation_unavailable'],
    ['POST', 'http://service.example/v1/evidence/reports', 'report_generation_unavailable'],
    ['GET', '/v1/usage/current/', 'current_usage_unavailable'],
    ['GET', '/v1/usage/current#fragment', 'current_usage_unavailable'],
    ['GET', 'http://service.example/v1/usage/current?month=now', 'current_usage_unavailable'],
    ['GET', '/v1/evidence/reports/5b0e6a3c-0000-4000-8000-000000000000/', 'report_generation_unavailable'],
    // Targets WHATWG URL refuses or rewrites, which node:http accepts and Koa (parseurl) still
    // routes to the operation: a port past 65535, a bad IPv6 literal, an empty authority, an
    // empty user part, dot segments.
    ['POST', 'http://h:99999/v1/evidence/reports', 'report_generation_unavailable'],
    ['POST', 'http://[zz]/v1/evidence/reports', 'report_generation_unavailable'],
    ['POST', 'http:///v1/evidence/reports', 'report_generation_unavailable'],
    ['GET', 'http://@/v1/usage/current', 'current_usage_unavailable'],
    ['GET', 'http://h/v1/evidence/reports/..', 'report_generation_unavailable'],
  ] as const) {
    it(`${method} ${url} is shed as its operation (${code})`, async () => {
      const { res, written } = fakeResponse();
      listener({ method, url, headers: {} } as IncomingMessage, res as unknown as ServerResponse);
      await endOfThisTurn();
      expect(written.status).to.equal(503);
      expect(JSON.parse(written.body as string).error.code).to.equal(code);
    });
  }

  it('health, readiness and what no operation matches are never shed', async () => {
    for (const url of ['/healthz', '/readyz', '/openapi.json', '/v1/evidence/reports/a/b', '/v1/usagecurrent']) {
      const { res, written } = fakeResponse();
      listener({ method: 'GET', url, headers: {} } as IncomingMessage, res as unknown as ServerResponse);
      await endOfThisTurn();
      expect(written.status, url).to.equal(undefined);
    }
  });

  it('R35: a refusal written after draining began closes its connection, though its request came before', async () => {
    const { res, written } = fakeResponse();
    listener(post, res as unknown as ServerResponse);
    draining = true;
    try {
      await endOfThisTurn();
    } finally {
      draining = false;
    }
    expect(written.status).to.equal(503);
    expect(written.set?.connection).to.equal('close');
  });
});

describe('routedPath: the path the router matches (R52)', () => {
  it('drops the query, the fragment, trailing slashes and an absolute-form origin', () => {
    expect(routedPath('/v1/usage/current?x=1')).to.equal('/v1/usage/current');
    expect(routedPath('/v1/usage/current///')).to.equal('/v1/usage/current');
    expect(routedPath('/v1/usage/current#a?b')).to.equal('/v1/usage/current');
    expect(routedPath('http://h:8080/v1/usage/current/?y')).to.equal('/v1/usage/current');
    expect(routedPath('/')).to.equal('/');
    expect(routedPath('*')).to.equal('*');
    expect(routedPath(undefined)).to.equal('');
  });
});

describe('the edge holds a started request\'s place until its work has ended (R52)', () => {
  const admission = new AdmissionControl({ maxQueueMs: 60_000, maxConcurrency: 1 });
  after(() => admission.close());
  let finish: () => void = () => {};
  const listener = edgeFor(admission, () => new Promise<void>((resolve) => (finish = resolve)));

  it('a client gone mid-work frees no place (the database steps run on); the end of the work does', async () => {
    const closers: (() => void)[] = [];
    const res = { ...fakeResponse().res, writableFinished: true, once: (event: string, fn: () => void) => (event === 'close' && closers.push(fn), res) };
    listener({ method: 'POST', url: '/v1/evidence/reports', headers: {} } as IncomingMessage, res as unknown as ServerResponse);
    expect(admission.active).to.equal(1);
    closers.forEach((close) => close());
    expect(admission.active, 'after the client went away').to.equal(1);
    finish();
    await new Promise((resolve) => setImmediate(resolve));
    expect(admission.active, 'after the work ended').to.equal(0);
  });
});

describe('the edge refuses a queued request still waiting at ADMISSION_MAX_QUEUE_MS (R52)', () => {
  let now = 0;
  const admission = new AdmissionControl({ maxQueueMs: 1_000, maxConcurrency: 1, now: () => now, loopDelayMs: () => 0 });
  after(() => admission.close());
  const handled: string[] = [];
  const listener = edgeFor(admission, endlessWork(handled));

  it('answered 503 with Retry-After and the operation\'s code, and the application never runs it', async () => {
    listener({ method: 'POST', url: '/v1/evidence/reports', headers: {} } as IncomingMessage, fakeResponse().res as unknown as ServerResponse);
    const { res, written } = fakeResponse();
    listener({ method: 'GET', url: '/v1/usage/current', headers: {} } as IncomingMessage, res as unknown as ServerResponse);
    expect(admission.queued, 'queued behind the held place').to.equal(1);
    now += 1_000;
    admission.adjust();
    await new Promise((resolve) => setImmediate(resolve));
    expect(written.status, 'at the bound it still waits').to.equal(undefined);
    now += 1;
    admission.adjust();
    await new Promise((resolve) => setImmediate(resolve));
    expect(written.status).to.equal(503);
    expect(written.headers?.['retry-after']).to.equal('1');
    expect(JSON.parse(written.body as string).error.code).to.equal('current_usage_unavailable');
    expect(handled).to.deep.equal(['/v1/evidence/reports']);
  });
});

// R52 with R40: a request that admission control queued is timed from its arrival at the edge,
// so ers_http_request_duration_seconds and the access log count the wait in the queue, which is
// most of a request's latency exactly when the instance is saturated.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { expect } from 'chai';
import Koa from 'koa';
import pino from 'pino';
import { AdmissionControl } from '../../../src/http/admission-control.ts';
import { arrivalOf, markArrival } from '../../../src/http/arrival.ts';
import { edgeListener } from '../../../src/http/edge.ts';
import { requestContext } from '../../../src/http/request-context.ts';
import type { AppState } from '../../../src/http/app-state.ts';
import { noopTelemetry, type RequestOutcome, type Telemetry } from '../../../src/observability/telemetry.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const response = () => ({ destroyed: false, writableFinished: true, once: () => undefined, on: () => undefined, setHeader: () => undefined, destroy: () => undefined }) as unknown as ServerResponse;

describe('a queued request is timed from its arrival at the edge (R52, R40)', () => {
  it('the edge marks a guarded request when it arrives, before admission; the queue wait is inside its time', async () => {
    const admission = new AdmissionControl({ maxQueueMs: 5_000, maxConcurrency: 1 });
    try {
      const started: { req: IncomingMessage; at: number }[] = [];
      const listener = edgeListener({
        handle: async (req) => {
          started.push({ req, at: performance.now() });
          await sleep(300);
        },
        admission,
        draining: () => false,
        telemetry: noopTelemetry,
        logger: pino({ level: 'silent' }),
        responseTimeoutMs: 1_000,
      });
      const first = { method: 'POST', url: '/v1/evidence/reports', headers: {} } as IncomingMessage;
      const second = { method: 'POST', url: '/v1/evidence/reports', headers: {} } as IncomingMessage;
      listener(first, response());
      listener(second, response());
      for (let i = 0; i < 100 && started.length < 2; i++) await sleep(20);
      expect(started.map((s) => s.req)).to.deep.equal([first, second]);
      const queued = started[1]!.at - arrivalOf(second)!;
      expect(queued, 'the second waited for the first, and that wait is measured').to.be.at.least(250);
    } finally {
      admission.close();
    }
  });

  it('the request context counts from that mark', async () => {
    const outcomes: RequestOutcome[] = [];
    const telemetry: Telemetry = { ...noopTelemetry, request: () => ({ traceId: undefined, run: (fn) => fn(), end: (outcome) => outcomes.push(outcome) }) };
    const middleware = requestContext(pino({ level: 'silent' }), telemetry);
    const app = new Koa<AppState>();
    const req = { method: 'GET', url: '/healthz', headers: {} } as IncomingMessage;
    // The edge saw it 400 ms ago.
    markArrival(req);
    await sleep(400);
    const res = { once: () => undefined, setHeader: () => undefined, getHeader: () => undefined, removeHeader: () => undefined, writableFinished: true } as unknown as ServerResponse;
    const ctx = app.createContext(req, res);
    await middleware(ctx, async () => {});
    expect(outcomes).to.have.lengthOf(1);
    expect(outcomes[0]!.seconds).to.be.at.least(0.39);
  });
});

// R52: a saturated instance refuses before the application runs, with 503 and Retry-After; the
// refusal is written at the end of the event-loop turn with the turn's other answers
// (src/http/end-of-turn.ts), and a client that went away meanwhile is written nothing.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { expect } from 'chai';
import pino from 'pino';
import { AdmissionControl } from '../../../src/http/admission-control.ts';
import { edgeListener } from '../../../src/http/edge.ts';
import { noopTelemetry } from '../../../src/observability/telemetry.ts';

/** The part of a ServerResponse the edge uses, recording what was written. */
function fakeResponse() {
  const written: { status?: number; headers?: Record<string, unknown>; body?: string } = {};
  const res = {
    destroyed: false,
    setHeader: () => res,
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

describe('the edge sheds a saturated instance at the end of the turn (R52)', () => {
  const admission = new AdmissionControl({ maxQueueMs: 1, maxConcurrency: 1 });
  after(() => admission.close());
  const handled: string[] = [];
  const listener = edgeListener({
    handle: async (req) => void handled.push(String(req.url)),
    admission,
    draining: () => false,
    telemetry: noopTelemetry,
    logger: pino({ level: 'silent' }),
    responseTimeoutMs: 1_000,
  });
  const post = { method: 'POST', url: '/v1/evidence/reports' } as IncomingMessage;
  const endOfThisTurn = () => new Promise((resolve) => setImmediate(resolve));

  // One request holds the only place (its response never closes here), so the next is refused.
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

  it('a client gone before the end of the turn is written nothing', async () => {
    const { res, written } = fakeResponse();
    listener(post, res as unknown as ServerResponse);
    res.destroyed = true;
    await endOfThisTurn();
    expect(written).to.deep.equal({});
  });
});

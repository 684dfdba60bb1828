// The front of the pipeline on its own (spec section 1; R5, R6, R8, R11, R29): route, step 1,
// step 2, then the operation, each once and in that order, with a fake authenticator and
// operations that record what they were given. Each step's work happens between the opening and
// the closing of its own step (its span), and a refusal ends the step it belongs to.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import Koa from 'koa';
import { pino } from 'pino';
import { ApiError, isApiError } from '../../../src/errors/catalogue.ts';
import { createApiFront, type OperationInput } from '../../../src/http/api-front.ts';
import type { AppState } from '../../../src/http/app-state.ts';
import { loadContract } from '../../../src/http/contract.ts';
import { noopTelemetry, type Telemetry } from '../../../src/observability/telemetry.ts';
import { principal, TEXT_REQUEST } from '../../support/unit/use-case.ts';

const KEY = 'ers_live_front_test_key';
const contract = await loadContract();

interface Rig {
  /** What ran, in order: step boundaries and the work inside them. */
  readonly events: string[];
  readonly inputs: OperationInput[];
  url: string;
  server: Server;
}

async function startFront(options: { rejectInput?: boolean } = {}): Promise<Rig> {
  const events: string[] = [];
  const inputs: OperationInput[] = [];
  const telemetry: Telemetry = {
    ...noopTelemetry,
    step: async (label, fn) => {
      events.push(`open ${label}`);
      try {
        return await fn();
      } catch (error) {
        events.push(`fail ${label} ${isApiError(error) ? error.code : 'other'}`);
        throw error;
      } finally {
        events.push(`close ${label}`);
      }
    },
  };
  const front = await createApiFront({
    document: contract.document,
    authenticate: async (apiKey) => {
      events.push('authenticate');
      if (apiKey !== KEY) throw new ApiError('invalid_api_key');
      return principal();
    },
    operations: {
      createEvidenceReport: {
        validate: (input) => {
          events.push('operation validate');
          if (options.rejectInput) throw new ApiError('invalid_evidence_report_input');
          inputs.push(input);
        },
        handle: async (input) => {
          events.push('handle');
          return { status: 201, body: { seen: input.body } };
        },
      },
      getCurrentUsage: { handle: async () => ({ status: 200, body: {} }) },
      getEvidenceReport: {
        handle: async (input) => {
          events.push('handle');
          inputs.push(input);
          return { status: 200, body: {} };
        },
      },
    },
    bodyMaxBytes: 1024,
    telemetry,
  });
  const app = new Koa<AppState>();
  app.use(async (ctx, next) => {
    ctx.state.requestId = 'request-1';
    ctx.state.log = pino({ enabled: false });
    ctx.state.abortSignal = new AbortController().signal;
    try {
      await next();
    } catch (error) {
      if (!isApiError(error)) throw error;
      ctx.status = error.status;
      ctx.body = { code: error.code };
    }
  });
  app.use(front.middleware);
  const server = createServer(app.callback()).listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { events, inputs, server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const post = (rig: Rig, headers: Record<string, string>, body: string) =>
  fetch(`${rig.url}/v1/evidence/reports`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

describe('the API front: route, step 1, step 2, operation, in the specification order', () => {
  let rig: Rig;
  afterEach(() => rig.server.close());

  it('a valid request authenticates in step 1, reads and validates in step 2 (the operation\'s check inside it), then hands the principal and input to the operation', async () => {
    rig = await startFront();
    const response = await post(rig, { 'x-api-key': KEY, 'idempotency-key': '  k-1 ' }, JSON.stringify(TEXT_REQUEST));
    expect(response.status).to.equal(201);
    expect(rig.events).to.deep.equal(['open 1_authenticate', 'authenticate', 'close 1_authenticate', 'open 2_validate', 'operation validate', 'close 2_validate', 'handle']);
    expect(rig.inputs[0]).to.include({ idempotencyKey: 'k-1', requestId: 'request-1' });
    expect(rig.inputs[0]?.principal).to.deep.equal(principal());
    expect(rig.inputs[0]?.body).to.deep.equal(TEXT_REQUEST);
  });

  it('a bad key with a bad body is the 401 of step 1: step 2 never opens (R5)', async () => {
    rig = await startFront();
    const response = await post(rig, { 'x-api-key': 'wrong' }, '{not json');
    expect(response.status).to.equal(401);
    expect(rig.events).to.deep.equal(['open 1_authenticate', 'authenticate', 'fail 1_authenticate invalid_api_key', 'close 1_authenticate']);
  });

  it('an unknown path is a 404 and a known path with another method a 405, before authentication (R9)', async () => {
    rig = await startFront();
    const unknown = await fetch(`${rig.url}/v1/nothing`, { headers: { 'x-api-key': 'wrong' } });
    const wrongMethod = await fetch(`${rig.url}/v1/evidence/reports`, { method: 'DELETE', headers: { 'x-api-key': 'wrong' } });
    expect([unknown.status, wrongMethod.status]).to.deep.equal([404, 405]);
    expect(rig.events).to.deep.equal([]);
  });

  for (const { name, headers, body, code } of [
    { name: 'a content type other than JSON (R6)', headers: { 'content-type': 'text/plain' }, body: JSON.stringify(TEXT_REQUEST), code: 'invalid_request_payload' },
    { name: 'an Idempotency-Key too long (R11)', headers: { 'idempotency-key': 'k'.repeat(256) }, body: '{not json', code: 'invalid_idempotency_key' },
    { name: 'a body over the limit', headers: {}, body: JSON.stringify({ ...TEXT_REQUEST, padding: 'x'.repeat(2048) }), code: 'invalid_request_payload' },
    { name: 'malformed JSON', headers: {}, body: '{not json', code: 'invalid_json' },
    { name: 'a body against the schema (R8)', headers: {}, body: JSON.stringify({ context: 'nope', evidence: {} }), code: 'invalid_request_payload' },
  ]) {
    it(`${name} is refused inside step 2 with ${code}; the operation's own check and handler never run`, async () => {
      rig = await startFront();
      const response = await post(rig, { 'x-api-key': KEY, ...headers }, body);
      expect(((await response.json()) as { code: string }).code).to.equal(code);
      expect(rig.events.slice(3)).to.deep.equal(['open 2_validate', `fail 2_validate ${code}`, 'close 2_validate']);
    });
  }

  it('the operation\'s own check (R7) refuses inside step 2, after the schema', async () => {
    rig = await startFront({ rejectInput: true });
    const response = await post(rig, { 'x-api-key': KEY }, JSON.stringify(TEXT_REQUEST));
    expect(response.status).to.equal(422);
    expect(rig.events.slice(3)).to.deep.equal(['open 2_validate', 'operation validate', 'fail 2_validate invalid_evidence_report_input', 'close 2_validate']);
  });

  it('a read has no step 2: authenticated, its path parameter routed to the operation', async () => {
    rig = await startFront();
    const id = '0b9f6f38-51a4-4c4f-9d6b-2b8e5f3c1a7e';
    const response = await fetch(`${rig.url}/v1/evidence/reports/${id}`, { headers: { 'x-api-key': KEY } });
    expect(response.status).to.equal(200);
    expect(rig.events).to.deep.equal(['open 1_authenticate', 'authenticate', 'close 1_authenticate', 'handle']);
    expect(rig.inputs[0]?.params).to.deep.equal({ id });
  });
});

describe('the response check (every API response is checked against the contract)', () => {
  const checker = async () =>
    (
      await createApiFront({
        document: contract.document,
        authenticate: async () => principal(),
        operations: Object.fromEntries(['createEvidenceReport', 'getCurrentUsage', 'getEvidenceReport'].map((id) => [id, { handle: () => Promise.reject(new Error('not called')) }])),
        bodyMaxBytes: 1024,
      })
    ).checkResponse;
  const usage = {
    period: { startsAt: '2026-11-01T00:00:00.000Z', endsAt: '2026-12-01T00:00:00.000Z' },
    usage: [{ operation: 'evidence_report', used: 1, limit: 10, remaining: 9 }],
  };
  const headers = { 'x-request-id': '5f0c6c1e-8d2b-4a4e-9d55-0d6b1f3a2c11', 'cache-control': 'no-store' };

  it('passes a documented status with a conforming body', async () => {
    expect((await checker())('getCurrentUsage', 200, usage, headers)).to.deep.equal([]);
  });

  it('refuses a status the operation does not list, whatever the body (openapi-backend alone finds no schema and says nothing)', async () => {
    const check = await checker();
    const envelope = { error: { code: 'invalid_request_payload', message: 'x', requestId: headers['x-request-id'] } };
    for (const [operation, status] of [['getCurrentUsage', 418], ['getCurrentUsage', 422], ['createEvidenceReport', 404], ['getEvidenceReport', 409]] as const) {
      expect(check(operation, status, envelope, headers), `${operation} ${status}`).to.have.length(1);
    }
  });
});

// R51: the edge bounds what a peer can hold. Headers that dribble are cut after
// HEADERS_TIMEOUT_MS, a body that dribbles after REQUEST_TIMEOUT_MS, an idle keep-alive
// connection after KEEP_ALIVE_TIMEOUT_MS, an answer the client does not read (the 2.6 MB /docs
// page) after REQUEST_TIMEOUT_MS, and connections past MAX_CONNECTIONS are closed at once.
// Small values here; every bound is checked from both sides (not before, and within it plus
// node's checking interval and a margin for a loaded machine).
import { connect, type Socket } from 'node:net';
import { expect } from 'chai';
import { send } from '../../support/http-client.ts';
import { useService } from '../../support/use-service.ts';
import { customerTotals, waitFor } from '../../support/reports.ts';
import type { Server } from 'node:http';
import { createServer } from 'node:http';
import pino from 'pino';
import { AdmissionControl } from '../../../src/http/admission-control.ts';
import { edgeListener, edgeServerOptions } from '../../../src/http/edge.ts';
import { noopTelemetry } from '../../../src/observability/telemetry.ts';
import { createKey } from '../../../src/admin/keys.ts';
import { testEm } from '../../support/database.ts';

const connections = (server: Server) =>
  new Promise<number>((resolve, reject) => server.getConnections((error, count) => (error ? reject(error) : resolve(count))));

const HEADERS_MS = 600;
const REQUEST_MS = 1_200;
const KEEP_ALIVE_MS = 500;
/** Node's checking interval (a quarter of the shorter bound) plus room for a loaded machine. */
const MARGIN_MS = 700;

interface Probe {
  readonly socket: Socket;
  /** Resolves with the ms from `since` to the socket's close. */
  readonly closed: Promise<number>;
  /** Bytes received so far. */
  received(): Buffer;
}

async function open(url: string): Promise<Probe> {
  const { port, hostname } = new URL(url);
  const socket = connect(Number(port), hostname);
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  socket.on('error', () => {});
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const since = performance.now();
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(performance.now() - since)));
  return { socket, closed, received: () => Buffer.concat(chunks) };
}

/** Writes `piece` every `everyMs` until the socket closes (a peer that dribbles). */
function dribble(socket: Socket, piece: string, everyMs: number): void {
  const timer = setInterval(() => {
    if (socket.destroyed || socket.writableEnded) clearInterval(timer);
    else socket.write(piece);
  }, everyMs);
  socket.once('close', () => clearInterval(timer));
}

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: still open after ${ms} ms`)), ms))),
  ]);
}

describe('edge bounds on slow peers (R51)', () => {
  const app = useService({
    HEADERS_TIMEOUT_MS: String(HEADERS_MS),
    REQUEST_TIMEOUT_MS: String(REQUEST_MS),
    KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_MS),
  });

  it('headers that dribble (one header line every 100 ms) are cut after HEADERS_TIMEOUT_MS with 408', async () => {
    const probe = await open(app.service.url);
    probe.socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n');
    dribble(probe.socket, 'X-Slow: a\r\n', 100);
    const ms = await within(probe.closed, HEADERS_MS + MARGIN_MS + 2_000, 'dribbling headers');
    expect(ms, 'not before the bound').to.be.at.least(HEADERS_MS - 50);
    expect(ms, 'within HEADERS_TIMEOUT_MS + margin').to.be.below(HEADERS_MS + MARGIN_MS);
    const answer = probe.received().toString('latin1');
    expect(answer).to.match(/^HTTP\/1\.1 408 /);
    // R9: the answer carries a request id like every other; the connection is closed.
    expect(answer).to.match(/\r\nx-request-id: [0-9a-f-]{36}\r\n/);
    expect(answer).to.match(/\r\nconnection: close\r\n/);
  });

  it('a malformed request head is 400 in the error envelope, with a request id (R9), and closed', async () => {
    const probe = await open(app.service.url);
    probe.socket.write('POST /v1/evidence/reports HTTP/1.1\r\nHost: localhost\r\nContent-Length: abc\r\n\r\n');
    await within(probe.closed, 2_000, 'malformed head');
    const answer = probe.received().toString('latin1');
    expect(answer).to.match(/^HTTP\/1\.1 400 /);
    const requestId = /\r\nx-request-id: ([0-9a-f-]{36})\r\n/.exec(answer)?.[1];
    expect(requestId, 'x-request-id').to.be.a('string');
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { error: { code: string; requestId: string } };
    expect(body.error).to.include({ code: 'invalid_request_payload', requestId });
  });

  it('headers over node:http\'s size limit are 400 invalid_request_payload in the envelope, not 431 (R6: only the contract\'s statuses)', async () => {
    const probe = await open(app.service.url);
    // Node's limit is 16 KiB of head; one header of 20 KiB passes it.
    probe.socket.write(`GET /v1/usage/current HTTP/1.1\r\nHost: localhost\r\nX-Padding: ${'a'.repeat(20 * 1024)}\r\n\r\n`);
    await within(probe.closed, 2_000, 'oversized head');
    const answer = probe.received().toString('latin1');
    expect(answer).to.match(/^HTTP\/1\.1 400 /);
    expect(answer).to.match(/\r\ncache-control: no-store\r\n/);
    const requestId = /\r\nx-request-id: ([0-9a-f-]{36})\r\n/.exec(answer)?.[1];
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { error: { code: string; requestId: string } };
    expect(body.error).to.include({ code: 'invalid_request_payload', requestId });
  });

  for (const [what, head] of [
    ['an HTTP/1.1 request without Host', 'GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n'],
    ['an Expect that is not 100-continue', 'GET /healthz HTTP/1.1\r\nHost: localhost\r\nExpect: foo\r\nConnection: close\r\n\r\n'],
  ] as const) {
    it(`${what} is served, with R9's headers, not answered by node:http's bare 400 or 417`, async () => {
      const probe = await open(app.service.url);
      probe.socket.write(head);
      await within(probe.closed, 2_000, what);
      const answer = probe.received().toString('latin1');
      expect(answer).to.match(/^HTTP\/1\.1 200 /);
      expect(answer).to.match(/\r\nx-request-id: [0-9a-f-]{36}\r\n/);
      expect(answer).to.match(/\r\ncache-control: no-store\r\n/);
    });
  }

  it('a body that dribbles (one byte every 100 ms) is cut after REQUEST_TIMEOUT_MS; nothing is stored', async () => {
    const customer = app.customer;
    const probe = await open(app.service.url);
    probe.socket.write(
      'POST /v1/evidence/reports HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n' +
        `x-api-key: ${customer.apiKey}\r\nContent-Length: 10000\r\n\r\n{`,
    );
    dribble(probe.socket, ' ', 100);
    const ms = await within(probe.closed, REQUEST_MS + MARGIN_MS + 2_000, 'dribbling body');
    expect(ms, 'not before the bound').to.be.at.least(REQUEST_MS - 50);
    expect(ms, 'within REQUEST_TIMEOUT_MS + margin').to.be.below(REQUEST_MS + MARGIN_MS);
    expect(probe.received().toString('latin1')).to.match(/^HTTP\/1\.1 408 [^]*\r\nx-request-id: [0-9a-f-]{36}\r\n/);
    expect(await customerTotals(customer.customerId)).to.deep.equal({ reports: 0, units: 0, claims: 0 });
  });

  it('a test key\'s body cut after REQUEST_TIMEOUT_MS is answered 408 with ers-mode: test, as every answer after its authentication (R53)', async () => {
    const customer = app.customer;
    const { apiKey } = await createKey(await testEm(), { customerId: customer.customerId, mode: 'test' });
    const probe = await open(app.service.url);
    probe.socket.write(
      'POST /v1/evidence/reports HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n' +
        `x-api-key: ${apiKey}\r\nContent-Length: 100\r\n\r\n{"context"`,
    );
    await within(probe.closed, REQUEST_MS + MARGIN_MS + 2_000, 'stalled body');
    const answer = probe.received().toString('latin1');
    expect(answer).to.match(/^HTTP\/1\.1 408 /);
    expect(answer).to.match(/\r\ners-mode: test\r\n/);
  });

  it('an idle keep-alive connection is closed after KEEP_ALIVE_TIMEOUT_MS', async () => {
    const probe = await open(app.service.url);
    probe.socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\n\r\n');
    const answered = performance.now();
    const ms = await within(probe.closed, KEEP_ALIVE_MS + MARGIN_MS + 2_000, 'idle keep-alive');
    expect(probe.received().toString('latin1')).to.match(/^HTTP\/1\.1 200 /);
    expect(ms, 'not before the bound').to.be.at.least(KEEP_ALIVE_MS - 50);
    expect(performance.now() - answered, 'within KEEP_ALIVE_TIMEOUT_MS + margin').to.be.below(KEEP_ALIVE_MS + MARGIN_MS);
  });

  it('a /docs download the client does not read does not hold its connection past REQUEST_TIMEOUT_MS', async () => {
    const probe = await open(app.service.url);
    probe.socket.pause();
    probe.socket.write('GET /docs HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\n\r\n');
    await waitFor(() => app.service.connections() === 1, 2_000);
    const started = performance.now();
    await waitFor(() => app.service.connections() === 0, REQUEST_MS + MARGIN_MS + 2_000);
    expect(performance.now() - started, 'the server let the connection go within the bound').to.be.below(REQUEST_MS + MARGIN_MS);
    probe.socket.destroy();
  });

  it('a peer that keeps up is not cut: /docs read at once arrives whole', async () => {
    const response = await send(app.service.url, 'GET', '/docs');
    expect(response.status).to.equal(200);
    expect(Buffer.byteLength(response.text)).to.be.above(1_000_000);
  });
});


// One answer per request: an answer given before the body arrived (R5's 401, a 400 of the
// content type) is the request's answer, also when the rest of its body then stalls until
// REQUEST_TIMEOUT_MS (the keep-alive bound longer than that here, as by default, so that the
// request timeout is what closes the connection).
describe('edge bounds: a request answered before its body arrived gets no second answer (R51)', () => {
  const early = useService({
    HEADERS_TIMEOUT_MS: String(HEADERS_MS),
    REQUEST_TIMEOUT_MS: String(REQUEST_MS),
    KEEP_ALIVE_TIMEOUT_MS: '10000',
  });

  for (const [what, status, headers] of [
    ['without a key (401 before the body is read, R5)', 401, () => 'Content-Type: application/json\r\n'],
    ['with a content type that is not JSON (400, R6)', 400, () => `Content-Type: text/plain\r\nx-api-key: ${early.customer.apiKey}\r\n`],
  ] as const) {
    it(`a request answered ${what} while its body still arrives gets that one answer: no 408 after it when the body stalls`, async () => {
      const probe = await open(early.service.url);
      probe.socket.write(`POST /v1/evidence/reports HTTP/1.1\r\nHost: localhost\r\n${headers()}Content-Length: 100\r\n\r\n`);
      // Part of the body after the answer, as a client that streams its body does.
      await waitFor(() => probe.received().length > 0, 2_000);
      probe.socket.write('{"a":');
      // The connection is closed at REQUEST_TIMEOUT_MS (the rest of the body never comes), without a second answer.
      await within(probe.closed, REQUEST_MS + MARGIN_MS + 2_000, 'stalled body after an early answer');
      const answer = probe.received().toString('latin1');
      expect(answer.startsWith(`HTTP/1.1 ${status} `), answer).to.equal(true);
      expect(answer.match(/HTTP\/1\.1 \d{3} /g), answer).to.have.length(1);
    });
  }

});

describe('edge bound on connections (R51)', () => {
  const MAX = 3;
  const app = useService({ MAX_CONNECTIONS: String(MAX) });

  it('connections past MAX_CONNECTIONS are closed at once; once one closes, a new one is served', async () => {
    const held = await Promise.all(Array.from({ length: MAX }, () => open(app.service.url)));
    // A client's connect completes in the kernel before the service accepts, and the API port's
    // accept sockets take connections in no fixed order: the held ones must be accepted before
    // the excess arrives, or an excess one may take a held one's place.
    await waitFor(() => app.service.connections() === MAX, 2_000);
    const excess = await Promise.all(Array.from({ length: 3 }, () => open(app.service.url)));
    for (const probe of excess) {
      probe.socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
      const ms = await within(probe.closed, 2_000, 'a connection past the cap');
      expect(ms, 'closed at once').to.be.below(500);
      expect(probe.received().length, 'never answered').to.equal(0);
    }
    // The held connections are served.
    const [first, ...rest] = held;
    if (!first) throw new Error('no connection held');
    first.socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
    await within(first.closed, 2_000, 'a held connection');
    expect(first.received().toString('latin1')).to.match(/^HTTP\/1\.1 200 /);
    // Its place is free again.
    expect((await send(app.service.url, 'GET', '/healthz')).status).to.equal(200);
    for (const probe of rest) probe.socket.destroy();
  });
});

describe('an answer the client does not take is abandoned after REQUEST_TIMEOUT_MS (R51)', () => {
  // Loopback kernels take a few MB of an unread answer (the /docs page fits in them); an answer
  // larger than any socket buffer shows the edge's own deadline at work.
  const ANSWER = Buffer.alloc(64 * 1024 * 1024, 'a');
  const bounds = { maxConnections: 100, headersTimeoutMs: HEADERS_MS, requestTimeoutMs: REQUEST_MS, keepAliveTimeoutMs: 60_000 };
  let server: Server;
  let admission: AdmissionControl;
  let url: string;

  before(async () => {
    admission = new AdmissionControl({ maxQueueMs: 1_000, maxConcurrency: 8 });
    server = createServer(
      edgeServerOptions(bounds),
      edgeListener({
        handle: async (_req, res) => {
          res.writeHead(200, { 'content-length': ANSWER.length });
          res.end(ANSWER);
        },
        admission,
        draining: () => false,
        telemetry: noopTelemetry,
        logger: pino({ level: 'silent' }),
        responseTimeoutMs: REQUEST_MS,
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  after(async () => {
    admission.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('a client that stops reading loses the connection; the answer is cut short', async () => {
    const probe = await open(url);
    probe.socket.pause();
    probe.socket.write('GET /big HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await waitFor(async () => (await connections(server)) === 1, 2_000);
    const started = performance.now();
    await waitFor(async () => (await connections(server)) === 0, REQUEST_MS + MARGIN_MS + 2_000);
    expect(performance.now() - started, 'within REQUEST_TIMEOUT_MS + margin').to.be.below(REQUEST_MS + MARGIN_MS);
    probe.socket.resume();
    await within(probe.closed, 5_000, 'the client reading what was buffered');
    expect(probe.received().length, 'less than the answer arrived').to.be.below(ANSWER.length);
  });
});

describe('the Keep-Alive hint and the idle close (R51)', () => {
  // A client may reuse an idle connection until the hinted `Keep-Alive: timeout=` (undici does,
  // less its own small threshold). Were the hint the close itself (5 s and 5 s), a request sent
  // just inside it would cross the server's close on the wire and be lost, a POST with no safe
  // retry. So the hint is at least a second short of KEEP_ALIVE_TIMEOUT_MS, which stays the close.
  async function serve(keepAliveTimeoutMs: number): Promise<{ server: Server; url: string }> {
    const server = createServer(edgeServerOptions({ headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs }), (_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    return { server, url: `http://127.0.0.1:${port}` };
  }

  for (const [bound, hint] of [[5_000, 4], [2_500, 1], [1_999, 0], [900, 0], [60_000, 59]] as const) {
    it(`KEEP_ALIVE_TIMEOUT_MS=${bound} is hinted as timeout=${hint}`, async () => {
      const { server, url } = await serve(bound);
      try {
        const probe = await open(url);
        probe.socket.write('GET / HTTP/1.1\r\nHost: localhost\r\n\r\n');
        await waitFor(() => probe.received().includes('\r\n\r\nok'), 2_000);
        expect(probe.received().toString('latin1').toLowerCase()).to.include(`\r\nkeep-alive: timeout=${hint}\r\n`);
        probe.socket.destroy();
      } finally {
        server.closeAllConnections();
        server.close();
      }
    });
  }

  it('the idle connection is still closed at KEEP_ALIVE_TIMEOUT_MS itself, not at the hint', async () => {
    const bound = 2_500;
    const { server, url } = await serve(bound);
    try {
      const probe = await open(url);
      probe.socket.write('GET / HTTP/1.1\r\nHost: localhost\r\n\r\n');
      await waitFor(() => probe.received().includes('\r\n\r\nok'), 2_000);
      const answered = performance.now();
      await within(probe.closed, bound + MARGIN_MS + 2_000, 'idle keep-alive');
      const idle = performance.now() - answered;
      expect(idle, 'not before the bound').to.be.at.least(bound - 50);
      expect(idle, 'within the bound and a margin').to.be.below(bound + MARGIN_MS);
    } finally {
      server.close();
    }
  });
});

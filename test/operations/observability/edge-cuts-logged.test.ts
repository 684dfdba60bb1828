// R51 with R40/R41: a request the edge cuts short (headers or a body that do not arrive within
// their bound, a head node:http cannot take) is answered with an x-request-id like every answer
// (R9), and that id names a log line and the request is counted, so that a client reporting
// the id finds it and an operator sees slow peers being cut. A body that timed out belongs to a
// request the application already has: its one access line keeps its id and says 408, not 499
// (the client did not go away: the service closed the connection).
import { connect, type Socket } from 'node:net';
import { expect } from 'chai';
import { createCustomerFixture } from '../../support/database.ts';
import { startLoggedService, type CapturedLog } from '../../support/e2e/logged-service.ts';
import type { TestService } from '../../support/service.ts';
import { serviceEnv, waitFor } from '../../support/reports.ts';
import { scrape, seriesKey } from '../../support/observability/prometheus.ts';

const HEADERS_MS = 500;
const REQUEST_MS = 1_000;

type Line = Record<string, unknown>;
const parsed = (log: CapturedLog): Line[] => log.lines.map((l) => JSON.parse(l.raw) as Line);

/** Writes `head`, then waits for the server to close the connection; resolves with what it sent back. */
async function cutShort(url: string, head: string): Promise<string> {
  const { port, hostname } = new URL(url);
  const socket: Socket = connect(Number(port), hostname);
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  socket.on('error', () => {});
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  socket.write(head);
  await new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return Buffer.concat(chunks).toString('latin1');
}

const requestIdOf = (answer: string): string => {
  const match = /\r\nx-request-id: ([0-9a-f-]{36})\r\n/.exec(answer);
  if (!match?.[1]) throw new Error(`no x-request-id in ${JSON.stringify(answer.slice(0, 200))}`);
  return match[1];
};

async function counted(service: TestService, labels: { operation: string; status: string; code: string }): Promise<number> {
  return (await scrape(service.metricsUrl as string)).samples.get(seriesKey('ers_http_requests_total', labels)) ?? 0;
}

describe('requests cut at the edge are logged and counted under the id their answer carries (R51, R9, R40, R41)', function () {
  this.timeout(30_000);
  let service: TestService;
  let log: CapturedLog;

  before(async () => {
    ({ service, log } = await startLoggedService(
      await serviceEnv({ HEADERS_TIMEOUT_MS: String(HEADERS_MS), REQUEST_TIMEOUT_MS: String(REQUEST_MS), METRICS_PORT: '0' }),
      'info',
    ));
  });
  after(async () => {
    await service.close();
  });

  it('headers that never arrive whole: 408, one line with its id, counted as 408 of no operation', async () => {
    const before = await counted(service, { operation: 'other', status: '408', code: 'none' });
    const answer = await cutShort(service.url, 'GET /v1/usage/current HTTP/1.1\r\nHost: localhost\r\n');
    expect(answer).to.match(/^HTTP\/1\.1 408 /);
    const requestId = requestIdOf(answer);
    const lines = parsed(log).filter((l) => l.requestId === requestId);
    expect(lines).to.have.length(1);
    expect(lines[0]).to.include({ msg: 'request cut at the edge', status: 408, reason: 'ERR_HTTP_REQUEST_TIMEOUT' });
    expect(await counted(service, { operation: 'other', status: '408', code: 'none' })).to.equal(before + 1);
  });

  it('a head over node:http\'s size limit: 400 in the envelope, the same id in the body, the header and the line', async () => {
    const answer = await cutShort(service.url, `GET /v1/usage/current HTTP/1.1\r\nHost: localhost\r\nx-padding: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(answer).to.match(/^HTTP\/1\.1 400 /);
    const requestId = requestIdOf(answer);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).to.have.nested.property('error.requestId', requestId);
    const lines = parsed(log).filter((l) => l.requestId === requestId);
    expect(lines).to.have.length(1);
    expect(lines[0]).to.include({ msg: 'request cut at the edge', status: 400, code: 'invalid_request_payload' });
  });

  it('a body that does not arrive within REQUEST_TIMEOUT_MS: the request\'s own access line says 408 under the id of the 408', async () => {
    const customer = await createCustomerFixture();
    const before = await counted(service, { operation: 'createEvidenceReport', status: '408', code: 'none' });
    const answer = await cutShort(
      service.url,
      `POST /v1/evidence/reports HTTP/1.1\r\nHost: localhost\r\nx-api-key: ${customer.apiKey}\r\ncontent-type: application/json\r\ncontent-length: 80\r\n\r\n{"context":`,
    );
    expect(answer).to.match(/^HTTP\/1\.1 408 /);
    const requestId = requestIdOf(answer);
    // The access line is written once the handler has unwound from the cut.
    const accessLines = () => parsed(log).filter((l) => l.requestId === requestId && l.msg === 'request');
    await waitFor(() => accessLines().length > 0, 5_000);
    const lines = accessLines();
    expect(lines).to.have.length(1);
    expect(lines[0]).to.include({ operation: 'createEvidenceReport', status: 408 });
    expect(parsed(log).filter((l) => l.requestId === requestId && l.status === 499)).to.have.length(0);
    expect(await counted(service, { operation: 'createEvidenceReport', status: '408', code: 'none' })).to.equal(before + 1);
  });
});

describe('connections refused at MAX_CONNECTIONS are logged, summed at most once a second (R51)', function () {
  this.timeout(30_000);
  const MAX = 3;
  let service: TestService;
  let log: CapturedLog;

  before(async () => {
    ({ service, log } = await startLoggedService(await serviceEnv({ MAX_CONNECTIONS: String(MAX) }), 'info'));
  });
  after(async () => {
    await service.close();
  });

  it('every refused connection is told, the last of a burst too (not left for a next refusal)', async () => {
    const { port, hostname } = new URL(service.url);
    const open = async (): Promise<Socket> => {
      const socket = connect(Number(port), hostname);
      socket.on('error', () => {});
      await new Promise<void>((resolve) => socket.once('connect', resolve));
      return socket;
    };
    const held = [await open(), await open(), await open()];
    await waitFor(() => service.connections() === MAX, 2_000);
    const excess = await Promise.all(Array.from({ length: 5 }, open));
    const told = () =>
      parsed(log)
        .filter((l) => l.msg === 'connections refused: MAX_CONNECTIONS are open')
        .reduce((sum, l) => sum + Number(l.refused), 0);
    await waitFor(() => told() >= 5, 3_000);
    expect(told()).to.equal(5);
    const lines = parsed(log).filter((l) => l.msg === 'connections refused: MAX_CONNECTIONS are open');
    expect(lines.length, 'summed: at most two lines for a burst within a second').to.be.within(1, 2);
    expect(lines[0]).to.include({ level: 40, maxConnections: MAX });
    for (const socket of [...held, ...excess]) socket.destroy();
  });
});

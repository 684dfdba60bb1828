// A server for bench/refusal-floor.ts that refuses every report creation, one of two ways
// (MODE): `edge`, the service's own edge (src/http/edge.ts) with an admission control that is
// always saturated, so every POST gets the 503 of R52 exactly as the service writes it; `plain`,
// node:http writing the same 503 at once with nothing else around it (the least that refusal
// can cost on node:http). GET /healthz answers 200 (readiness). PORT from the env.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { edgeListener, edgeServerOptions } from '../src/http/edge.ts';
import type { AdmissionControl } from '../src/http/admission-control.ts';
import { noopTelemetry } from '../src/observability/telemetry.ts';
import { ERROR_CATALOGUE } from '../src/errors/catalogue.ts';

const options = edgeServerOptions({ headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5_000 });

function health(req: IncomingMessage, res: ServerResponse): boolean {
  if (req.method !== 'GET' || req.url !== '/healthz') return false;
  res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
  return true;
}

// The edge's 503 byte for byte (its body and headers), written as soon as the request is read.
function plain(req: IncomingMessage, res: ServerResponse): void {
  if (health(req, res)) return;
  const code = 'report_generation_unavailable';
  const requestId = randomUUID();
  const body = JSON.stringify({ error: { code, message: ERROR_CATALOGUE[code].message, requestId } });
  res
    .writeHead(503, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      'x-request-id': requestId,
      'cache-control': 'no-store',
      'retry-after': '1',
    })
    .end(body);
}

// Only admit() is reached on the refusal path; an always-saturated instance admits nothing.
const saturated = { admit: () => undefined } as unknown as AdmissionControl;
const edge = edgeListener({
  handle: async (req, res) => {
    if (!health(req, res)) res.writeHead(404).end();
  },
  admission: saturated,
  draining: () => false,
  telemetry: noopTelemetry,
  logger: pino({ level: 'info' }),
  responseTimeoutMs: 30_000,
});

const server = createServer(options, process.env.MODE === 'plain' ? plain : edge);
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
process.once('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});

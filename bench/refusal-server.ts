// A server for bench/refusal-floor.ts that refuses every report creation, one of two ways
// (MODE): `edge`, the service's own edge (src/http/edge.ts) with an admission control that is
// always saturated, so every POST gets the 503 of R52 exactly as the service writes it; `plain`,
// node:http answering the same 503 and headers with nothing else (the least any refusal on
// node:http can cost). GET /healthz answers 200 (readiness). PORT from the env.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { edgeListener, edgeServerOptions } from '../src/http/edge.ts';
import type { AdmissionControl } from '../src/http/admission-control.ts';
import { noopTelemetry } from '../src/observability/telemetry.ts';

const options = edgeServerOptions({ headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5_000 });

function health(req: IncomingMessage, res: ServerResponse): boolean {
  if (req.method !== 'GET' || req.url !== '/healthz') return false;
  res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
  return true;
}

function plain(req: IncomingMessage, res: ServerResponse): void {
  if (health(req, res)) return;
  const body = JSON.stringify({ error: { code: 'report_generation_unavailable', message: 'Report generation is unavailable.', requestId: randomUUID() } });
  res.writeHead(503, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), 'retry-after': '1' }).end(body);
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

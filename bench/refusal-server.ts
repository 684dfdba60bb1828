// A server for bench/refusal-floor.ts that refuses every report creation, one of two ways
// (MODE): `edge`, the service's own edge (src/http/edge.ts) with an admission control that is
// always saturated, so every POST gets the 503 of R52 exactly as the service writes it; `plain`,
// node:http writing the same 503 (the edge's shed) at once with nothing else around it (the
// least that refusal can cost on node:http). GET /healthz answers 200 (readiness). PORT from the env.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import pino from 'pino';
import { loadConfig } from '../src/config.ts';
import { edgeListener, edgeServerOptions, shed } from '../src/http/edge.ts';
import type { AdmissionControl } from '../src/http/admission-control.ts';
import { noopTelemetry } from '../src/observability/telemetry.ts';

// The edge bounds of R51 at their defaults, as `npm start` applies them (src/server.ts).
const config = loadConfig({});
const options = edgeServerOptions(config);

function health(req: IncomingMessage, res: ServerResponse): boolean {
  if (req.method !== 'GET' || req.url !== '/healthz') return false;
  res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
  return true;
}

// The edge's own 503 (shed), written as soon as the request is read: no route check, no
// admission decision, no wait for the end of the turn.
function plain(req: IncomingMessage, res: ServerResponse): void {
  if (!health(req, res)) shed(res, 'report_generation_unavailable');
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
  responseTimeoutMs: config.requestTimeoutMs,
});

const server = createServer(options, process.env.MODE === 'plain' ? plain : edge);
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
process.once('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});

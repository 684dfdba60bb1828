// R40, R41: what the telemetry hooks of one POST cost by themselves, in this process, without
// the service around them: a request with its eleven steps, four statements and a generation
// goes through the no-op adapter (nothing configured), metrics only, and tracing to a local
// sink. CPU microseconds per request, a figure the neighbours' load moves far less than
// end-to-end throughput on a shared machine.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ServiceMetrics } from '../../src/observability/metrics.ts';
import { ObservedTelemetry } from '../../src/observability/observed-telemetry.ts';
import { startTracing } from '../../src/observability/otel-tracing.ts';
import { STEP_LABELS } from '../../src/observability/step-labels.ts';
import { noopTelemetry, type Telemetry } from '../../src/observability/telemetry.ts';

const WITH_STATEMENT = new Set(['4_entitlement', '5_idempotency', '6_quota', '9_10_persist']);
const done = async () => 1;

async function onePost(telemetry: Telemetry): Promise<void> {
  const request = telemetry.request('POST', '/v1/evidence/reports', {});
  await request.run(async () => {
    await telemetry.step('1_authenticate', () => telemetry.statement('auth_lookup', done));
    for (const label of STEP_LABELS.slice(1)) {
      if (label === '8_generate') await telemetry.step(label, () => telemetry.generation(done));
      else if (WITH_STATEMENT.has(label)) await telemetry.step(label, () => telemetry.statement('statement', done));
      else await telemetry.step(label, done);
    }
  });
  request.end({ operation: 'createEvidenceReport', status: 201, code: undefined, seconds: 0.001 });
}

async function cpuMicrosPerPost(telemetry: Telemetry, requests: number): Promise<number> {
  for (let i = 0; i < requests / 5; i++) await onePost(telemetry); // warm-up: compiled paths
  const before = process.cpuUsage();
  for (let i = 0; i < requests; i++) await onePost(telemetry);
  const used = process.cpuUsage(before);
  return Math.round((10 * (used.user + used.system)) / requests) / 10;
}

export interface TelemetryCost {
  readonly noop: number;
  readonly metrics: number;
  readonly tracing: number;
}

export async function measureTelemetryCost(): Promise<TelemetryCost> {
  const sink = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.end());
  });
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;
  try {
    const noop = await cpuMicrosPerPost(noopTelemetry, 20_000);
    const metrics = await cpuMicrosPerPost(new ObservedTelemetry({ metrics: new ServiceMetrics({ generator: 'offline' }), generator: 'offline' }), 20_000);
    const logger = { info: () => {}, warn: () => {} };
    const tracing = await startTracing({ endpoint, env: { OTEL_BSP_MAX_QUEUE_SIZE: '200000' }, logger });
    const traced = await cpuMicrosPerPost(new ObservedTelemetry({ tracing, generator: 'offline' }), 5_000);
    await tracing.close();
    return { noop, metrics, tracing: traced };
  } finally {
    sink.close();
    sink.closeAllConnections();
  }
}

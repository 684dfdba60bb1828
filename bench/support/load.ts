// One scenario: an optional warm-up, then the measured autocannon run, with the target
// process's peak RSS sampled throughout. Latencies are collected here from every response
// (autocannon's histogram keeps whole milliseconds; the GET ratio wants better), and every
// response is classified as expected or not.
import autocannon, { type AutocannonOptions, type AutocannonRequestStep } from 'autocannon';
import { RssSampler } from './processes.ts';
import { round } from './round.ts';

export interface LoadSpec {
  url: string;
  connections: number;
  /** Seconds of measured load; ignored when `amount` is set. */
  durationS?: number;
  /** A fixed number of requests instead of a duration (spread evenly over the connections). */
  amount?: number;
  warmupS: number;
  requests: AutocannonRequestStep[];
  /** The process whose memory is sampled. */
  pid?: number;
  /** Parse the error code of non-2xx bodies (costs the load generator some CPU). */
  readErrorCodes?: boolean;
  /** Whether a response is an expected outcome of the scenario. */
  expected: (status: number, errorCode: string | undefined) => boolean;
  timeoutS?: number;
}

export interface LoadFigures {
  connections: number;
  elapsedS: number;
  responses: number;
  requestsPerSec: number;
  successPerSec: number;
  latencyMs: { p50: number; p99: number; max: number };
  /** The same, per status code (a fast 503 and a slow 201 are different stories). */
  latencyMsByStatus: Record<string, { p50: number; p99: number; max: number }>;
  statuses: Record<string, number>;
  errorCodes: Record<string, number>;
  socketErrors: number;
  timeouts: number;
  unexpected: number;
  peakRssMiB: number | null;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

/** Warm-up and measured run, with the peak RSS of `spec.pid` over both. */
export async function runLoad(spec: LoadSpec): Promise<LoadFigures> {
  const sampler = spec.pid === undefined ? undefined : new RssSampler(spec.pid);
  let figures: LoadFigures | undefined;
  try {
    figures = await drive(spec);
  } finally {
    const peak = sampler?.stop();
    if (figures && peak !== undefined) figures.peakRssMiB = round(peak, 1);
  }
  return figures;
}

async function drive(spec: LoadSpec): Promise<LoadFigures> {
  const base: AutocannonOptions = { url: spec.url, connections: spec.connections, timeout: spec.timeoutS ?? 30 };
  if (spec.warmupS > 0) await autocannon({ ...base, duration: spec.warmupS, requests: spec.requests });

  const latencies: number[] = [];
  const byStatus: Record<string, number[]> = {};
  const statuses: Record<string, number> = {};
  const errorCodes: Record<string, number> = {};
  let unexpected = 0;
  const requests = spec.requests.map(
    (step): AutocannonRequestStep =>
      spec.readErrorCodes
        ? {
            ...step,
            onResponse: (status, body) => {
              const code = status >= 200 && status < 300 ? undefined : errorCodeOf(body);
              if (code !== undefined) errorCodes[`${status} ${code}`] = (errorCodes[`${status} ${code}`] ?? 0) + 1;
              if (!spec.expected(status, code)) unexpected++;
            },
          }
        : step,
  );
  const started = performance.now();
  const instance = autocannon({
    ...base,
    ...(spec.amount === undefined ? { duration: spec.durationS ?? 10 } : { amount: spec.amount }),
    requests,
  });
  instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
    latencies.push(ms);
    (byStatus[status] ??= []).push(ms);
    statuses[status] = (statuses[status] ?? 0) + 1;
    if (!spec.readErrorCodes && !spec.expected(status, undefined)) unexpected++;
  });
  const result = await instance;
  const elapsedS = (performance.now() - started) / 1000;
  const sorted = Float64Array.from(latencies).sort();
  const summary = (s: Float64Array) => ({ p50: round(percentile(s, 50)), p99: round(percentile(s, 99)), max: round(percentile(s, 100)) });
  const success = Object.entries(statuses)
    .filter(([status]) => status.startsWith('2'))
    .reduce((sum, [, count]) => sum + count, 0);
  return {
    connections: spec.connections,
    elapsedS: round(elapsedS),
    responses: latencies.length,
    requestsPerSec: round(latencies.length / elapsedS, 1),
    successPerSec: round(success / elapsedS, 1),
    latencyMs: summary(sorted),
    latencyMsByStatus: Object.fromEntries(Object.entries(byStatus).map(([status, ms]) => [status, summary(Float64Array.from(ms).sort())])),
    statuses,
    errorCodes,
    socketErrors: result.errors - result.timeouts,
    timeouts: result.timeouts,
    unexpected: unexpected + result.errors,
    peakRssMiB: null,
  };
}

function errorCodeOf(body: string): string {
  try {
    return (JSON.parse(body) as { error?: { code?: string } }).error?.code ?? 'no_code';
  } catch {
    return 'not_json';
  }
}

// The throughput, latency, memory and statement targets against the figures of a run: met, not met, or n/a when the
// scenario did not run. Reported only; a missed target never fails the run.
import type { LoadFigures } from './load.ts';
import type { ScenarioRow, TargetCheck } from './report.ts';
import type { StatementFigures } from './statement-pass.ts';

const ratio = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined || b === 0 ? undefined : a / b);

export interface TargetInputs {
  slowRequests: number;
  referenceBaselineRps: number;
  pgbenchTps: number | undefined;
  statements: readonly StatementFigures[];
}

/** POST against the Koa baseline (x2.0) and pgbench's durable write (x0.2); statements per request. */
function throughputAndStatementTargets(rows: readonly ScenarioRow[], opts: TargetInputs): TargetCheck[] {
  const rps = (key: string) => rows.find((r) => r.key === key)?.figures.successPerSec;
  const post = rps('post');
  const koa = rps('baseline');
  const fastify = rps('baselineFastify');
  const checks: TargetCheck[] = [
    {
      target: 'POST 2xx/s >= 2.0x the Koa+pg baseline',
      figure: `${post} vs ${koa} req/s (x${ratio(post, koa)?.toFixed(2)}; Fastify+pg ${fastify} req/s, x${ratio(post, fastify)?.toFixed(2)})`,
      met: post === undefined || koa === undefined ? null : post >= 2 * koa,
    },
    {
      target: 'POST 2xx/s >= 0.2x pgbench of the same durable write',
      figure: opts.pgbenchTps === undefined ? 'pgbench not installed' : `${post} vs ${opts.pgbenchTps} tps (x${ratio(post, opts.pgbenchTps)?.toFixed(2)})`,
      met: post === undefined || opts.pgbenchTps === undefined ? null : post >= 0.2 * opts.pgbenchTps,
    },
  ];
  const limits: Record<string, number> = { 'POST, no Idempotency-Key': 3, 'POST, new Idempotency-Key': 4, 'GET usage': 1 };
  for (const [request, limit] of Object.entries(limits)) {
    const figures = opts.statements.find((s) => s.request === request);
    checks.push({
      target: `${request}: at most ${limit} statement${limit === 1 ? '' : 's'} per request`,
      figure: figures ? `${figures.statementsPerRequest} (counted on the wire)` : 'not measured',
      met: figures ? figures.statementsPerRequest <= limit : null,
    });
  }
  return checks;
}

export function checkTargets(rows: readonly ScenarioRow[], opts: TargetInputs): TargetCheck[] {
  const byKey = (key: string): LoadFigures | undefined => rows.find((r) => r.key === key)?.figures;
  const { slowRequests, referenceBaselineRps } = opts;
  const checks: TargetCheck[] = [];
  const post = byKey('post');
  const baseline = byKey('baseline');
  const baseRps = baseline?.successPerSec ?? referenceBaselineRps;
  const baseName = baseline ? 'the Koa+pg baseline of this run' : `the reference ${referenceBaselineRps} req/s`;
  for (const key of ['post', 'postIdempotent'] as const) {
    const f = byKey(key);
    if (!f) continue;
    checks.push({
      target: `${key === 'post' ? 'POST' : 'POST with Idempotency-Key'} 2xx/s >= ${baseName}`,
      figure: `${f.successPerSec} vs ${baseRps} req/s (x${ratio(f.successPerSec, baseRps)?.toFixed(2)})`,
      met: f.successPerSec >= baseRps,
    });
  }
  const get0 = byKey('get');
  const get1m = byKey('get1m');
  for (const p of ['p50', 'p99'] as const) {
    const r = ratio(get1m?.latencyMs[p], get0?.latencyMs[p]);
    checks.push({
      target: `GET usage ${p} at 1M records <= 1.2x at 0`,
      figure: `${get1m?.latencyMs[p]} vs ${get0?.latencyMs[p]} ms (x${r?.toFixed(2)})`,
      met: r === undefined ? null : r <= 1.2,
    });
  }
  const single0 = byKey('getSingle');
  const single1m = byKey('get1mSingle');
  if (single0 && single1m) {
    const r = ratio(single1m.latencyMs.p50, single0.latencyMs.p50);
    checks.push({
      target: 'GET usage p50 at 1M <= 1.2x at 0, one connection (informative)',
      figure: `${single1m.latencyMs.p50} vs ${single0.latencyMs.p50} ms (x${r?.toFixed(2)})`,
      met: r === undefined ? null : r <= 1.2,
    });
  }
  const imagePeak = byKey('images')?.peakRssMiB;
  checks.push({
    target: 'peak RSS under the image load < 600 MiB',
    figure: `${imagePeak} MiB`,
    met: imagePeak === null || imagePeak === undefined ? null : imagePeak < 600,
  });
  const postPeaks = ['post', 'postIdempotent', 'post1m'].map((k) => byKey(k)?.peakRssMiB ?? 0);
  const postPeak = Math.max(...postPeaks);
  checks.push({
    target: 'peak RSS under the POST load < 256 MiB',
    figure: `${postPeak} MiB (max of the three POST runs)`,
    met: post ? postPeak < 256 : null,
  });
  const slow = byKey('slow');
  const slowOk = slow?.statuses['201'] ?? 0;
  checks.push({
    target: `2 s generator: all ${slowRequests} succeed`,
    figure: `${slowOk} of ${slowRequests} got 201`,
    met: slow ? slowOk === slowRequests : null,
  });
  checks.push({
    target: '2 s generator: p99 < 2500 ms',
    figure: `${slow?.latencyMs.p99} ms (p50 ${slow?.latencyMs.p50} ms)`,
    met: slow ? slow.latencyMs.p99 < 2500 : null,
  });
  return [...checks, ...throughputAndStatementTargets(rows, opts)];
}


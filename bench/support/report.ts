// The printed table and the target lines of a bench run.
import type { LoadFigures } from './load.ts';
import type { StatementFigures } from './statement-pass.ts';

export interface ScenarioRow {
  key: string;
  label: string;
  target: string;
  figures: LoadFigures;
}

export interface TargetCheck {
  target: string;
  figure: string;
  met: boolean | null;
}

const fmt = (n: number | null | undefined, digits = 1): string =>
  n === null || n === undefined || Number.isNaN(n) ? '-' : n.toFixed(digits);

function nonSuccess(f: LoadFigures): string {
  const parts = Object.entries(f.statuses)
    .filter(([status]) => !status.startsWith('2'))
    .map(([status, count]) => `${status}x${count}`);
  return parts.length === 0 ? '0' : parts.join(' ');
}

export function renderTable(rows: readonly ScenarioRow[]): string {
  const header = ['scenario', 'conns', 'req/s', '2xx/s', 'p50 ms', 'p99 ms', 'max ms', 'responses', 'non-2xx', 'sock err', 'peak RSS MiB'];
  const body = rows.map((r) => [
    r.label,
    String(r.figures.connections),
    fmt(r.figures.requestsPerSec),
    fmt(r.figures.successPerSec),
    fmt(r.figures.latencyMs.p50, 2),
    fmt(r.figures.latencyMs.p99, 2),
    fmt(r.figures.latencyMs.max, 0),
    String(r.figures.responses),
    nonSuccess(r.figures),
    String(r.figures.socketErrors + r.figures.timeouts),
    fmt(r.figures.peakRssMiB),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => (row[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

export function renderTargets(checks: readonly TargetCheck[]): string {
  const width = Math.max(...checks.map((c) => c.target.length));
  return checks
    .map((c) => `${c.met === null ? '[  n/a  ]' : c.met ? '[  met  ]' : '[NOT MET]'} ${c.target.padEnd(width)}  ${c.figure}`)
    .join('\n');
}

export function renderStatements(rows: readonly StatementFigures[]): string {
  return rows
    .map((r) => {
      const names = Object.entries(r.byName)
        .map(([name, n]) => `${name} ${n}`)
        .join(', ');
      const wal = r.walSyncsPerRequest === null ? '' : `, ${r.walSyncsPerRequest} WAL flushes (server-wide)`;
      return `${r.request.padEnd(26)} ${r.statementsPerRequest} statements in ${r.roundTripsPerRequest} round trips, ${r.commitsPerRequest} commits${wal}: ${names}`;
    })
    .join('\n');
}

/** R40, R41: POST throughput and latency with metrics and tracing on, against both off (medians over the rounds). */
export function renderObservability(
  rows: readonly ScenarioRow[],
  otlp:
    | {
        exports: number;
        bytes: number;
        postTraces: number;
        tracedPosts: number;
        cpuMsPerPost: Record<string, number[]>;
        hookCpuMicros: { noop: number; metrics: number; tracing: number };
      }
    | undefined,
): string | undefined {
  const median = (values: number[]): number => {
    const sorted = [...values].sort((a, b) => a - b);
    const mid = Math.floor(sorted.length / 2);
    return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
  };
  const of = (key: string) => {
    const runs = rows.filter((r) => r.key === key || r.key.startsWith(`${key}#`));
    if (runs.length === 0) return undefined;
    return {
      label: (runs[0] as ScenarioRow).label.replace(/ \(round \d+\)$/, ''),
      rounds: runs.length,
      rps: median(runs.map((r) => r.figures.successPerSec)),
      p50: median(runs.map((r) => r.figures.latencyMs.p50)),
      p99: median(runs.map((r) => r.figures.latencyMs.p99)),
      all: runs.map((r) => fmt(r.figures.successPerSec)).join(', '),
    };
  };
  const off = of('postObsOff');
  if (!off) return undefined;
  const lines: string[] = [];
  for (const key of ['postObsOff', 'postMetrics', 'postTracing', 'postMetricsTracing']) {
    const f = of(key);
    if (!f) continue;
    const share = key === 'postObsOff' ? '' : ` = ${fmt((100 * f.rps) / off.rps)}% of off`;
    const rounds = f.rounds > 1 ? ` (median of ${f.rounds}: ${f.all})` : '';
    const cpu = otlp?.cpuMsPerPost[key];
    const cpuText = cpu && cpu.length > 0 ? `, service CPU ${fmt(median(cpu), 2)} ms per POST` : '';
    lines.push(`${f.label}: ${fmt(f.rps)} req/s${share}${rounds}, p50 ${fmt(f.p50, 2)} ms, p99 ${fmt(f.p99, 2)} ms${cpuText}`);
  }
  if (otlp) {
    const { noop, metrics, tracing } = otlp.hookCpuMicros;
    lines.push(`the hooks of one POST alone, CPU per request: ${noop} µs with nothing on, ${metrics} µs with metrics, ${tracing} µs with tracing (17 spans: a POST without images)`);
    lines.push(
      `OTLP sink: ${otlp.exports} exports, ${fmt(otlp.bytes / 2 ** 20)} MiB, ${otlp.postTraces} POST traces received of ${otlp.tracedPosts} POSTs ` +
        'the traced processes answered 201 (more: the exporter resends an export it could not confirm)',
    );
  }
  return lines.join('\n');
}

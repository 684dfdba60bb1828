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

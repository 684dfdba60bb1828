// Reading the metrics as Prometheus would: a scrape over HTTP, the text format parsed into
// samples, and promtool (Debian package `prometheus`) run on files or on an exposition. A
// machine without promtool fails these tests, never skips them: `.ci/run` installs it.
import { spawnSync } from 'node:child_process';
import { expect } from 'chai';

export interface Scrape {
  readonly status: number;
  readonly contentType: string;
  readonly text: string;
  /** `name{label="value",...}` (labels sorted) -> value. */
  readonly samples: ReadonlyMap<string, number>;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** The key of a sample: its name and its labels in name order. */
export function seriesKey(name: string, labels: Record<string, string> = {}): string {
  const parts = Object.entries(labels)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([k, v]) => `${k}="${v}"`);
  return parts.length === 0 ? name : `${name}{${parts.join(',')}}`;
}

export function parseExposition(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`not a sample line of the text format: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(LABEL)) labels[key as string] = value as string;
    samples.set(seriesKey(match[1] as string, labels), Number(match[3]));
  }
  return samples;
}

export async function scrape(url: string): Promise<Scrape> {
  const res = await fetch(url, { signal: AbortSignal.timeout(5000) });
  const text = await res.text();
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', text, samples: res.ok ? parseExposition(text) : new Map() };
}

/** The series of `after` whose value differs from `before` (a new series counts from 0), with the difference. */
export function changes(before: ReadonlyMap<string, number>, after: ReadonlyMap<string, number>, prefix: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, value] of after) {
    if (!key.startsWith(prefix)) continue;
    const delta = value - (before.get(key) ?? 0);
    if (delta !== 0) out[key] = Math.round(delta * 1e9) / 1e9;
  }
  return out;
}

export interface ToolRun {
  readonly status: number;
  readonly output: string;
}

/** Runs promtool; a missing promtool is a failed test with the way to install it. */
export function promtool(args: readonly string[], stdin?: string): ToolRun {
  const run = spawnSync('promtool', args, { input: stdin, encoding: 'utf8', timeout: 60_000 });
  const missing = (run.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
  expect(missing, 'promtool is not installed: `apt-get install -y prometheus` (Debian) provides it; .ci/run installs it').to.equal(false);
  if (run.error) throw run.error;
  return { status: run.status ?? -1, output: `${run.stdout}${run.stderr}` };
}

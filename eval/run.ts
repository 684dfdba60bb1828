// `npm run eval [-- --json] [--compare A,B] [--cases PATH]` (operator-interface.md, R46): the
// labelled evaluation set through the configured generator by the production path. Prints the
// figures (or, with --json, one JSON object on stdout), and writes eval/results/<timestamp>.json
// and .html. Exits 0 whenever the run completes, whatever the scores; 1 on a bad case file or
// configuration, 2 on bad arguments.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadContract } from '../src/http/contract.ts';
import { applyEgressProxy } from '../src/shared/egress-proxy.ts';
import { CaseFormatError, DEFAULT_CASES_PATH, loadCases } from './cases.ts';
import { renderHtml } from './html.ts';
import { startImageHost } from './images.ts';
import { ConfigError, prepareRun, runCases, runConfig, runName } from './runner.ts';
import { deltaOf, summarize } from './score.ts';
import type { Summary, SummaryDelta } from './score.ts';

const USAGE = 'usage: npm run eval [-- --json] [--compare A,B] [--cases PATH] [--concurrency N] [--out DIR]';
const DEFAULT_OUT = fileURLToPath(new URL('./results', import.meta.url));

function fail(code: number, message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

let args;
try {
  args = parseArgs({
    options: {
      json: { type: 'boolean', default: false },
      compare: { type: 'string' },
      cases: { type: 'string' },
      concurrency: { type: 'string', default: '4' },
      out: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    allowPositionals: false,
  }).values;
} catch (error) {
  fail(2, `${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
}
if (args.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const concurrency = Number(args.concurrency);
if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64) fail(2, `--concurrency: expected 1..64\n${USAGE}`);
let compare: [string, string] | undefined;
if (args.compare !== undefined) {
  const names = args.compare.split(',').map((s) => s.trim());
  if (names.length !== 2 || names.some((n) => n === '')) fail(2, `--compare: expected two names, A,B (a GEMINI_MODEL value or offline)\n${USAGE}`);
  compare = [names[0] as string, names[1] as string];
}
// Two runs of the same name (offline,offline: a determinism check) stay apart in the output.
const labels = compare !== undefined && compare[0] === compare[1] ? [`${compare[0]} (A)`, `${compare[1]} (B)`] : compare;

const casesPath = resolve(args.cases ?? DEFAULT_CASES_PATH);
const contract = await loadContract();
let cases;
let prepared;
// Everything that can be wrong with the input or a configuration is found before any case runs
// (every configuration's models looked up too), and told in one line.
try {
  cases = await loadCases(casesPath);
  const configs = compare === undefined ? [runConfig(process.env)] : compare.map((model) => runConfig(process.env, model));
  // R45 as in the service: the generator's calls, its model lookups below included, and Vertex
  // AI's token requests go through HTTPS_PROXY / HTTP_PROXY when set; the image fetches never.
  // Every configuration reads the same proxy variables. Left in place until the process ends.
  if (configs[0] !== undefined) applyEgressProxy(configs[0].egressProxy);
  prepared = [];
  for (const config of configs) prepared.push(await prepareRun(config, contract));
} catch (error) {
  if (error instanceof CaseFormatError || error instanceof ConfigError) fail(1, error.message);
  const code = error instanceof Error && 'code' in error ? String(error.code) : undefined;
  if (code === 'ENOENT') fail(1, `--cases: ${casesPath} does not exist`);
  if (code !== undefined && /^E[A-Z]+$/.test(code)) fail(1, `--cases: ${casesPath} cannot be read (${code})`);
  throw error;
}
// The output folder too, before the first case: results that cannot be written would throw away
// every generation of the run (paid ones, with Gemini). A probe file is written and removed.
const outDir = resolve(args.out ?? DEFAULT_OUT);
try {
  await mkdir(outDir, { recursive: true });
  const probe = join(outDir, `.write-check-${process.pid}`);
  await writeFile(probe, '');
  await rm(probe);
} catch (error) {
  const code = error instanceof Error && 'code' in error ? String(error.code) : 'error';
  fail(1, `--out: ${outDir} cannot be written (${code})`);
}

const runs: { name: string; summary: Summary; outcomes: Awaited<ReturnType<typeof runCases>> }[] = [];
{
  await using host = await startImageHost(cases);
  for (const [i, run] of prepared.entries()) {
    const outcomes = await runCases(cases, run, { contract, host, concurrency });
    runs.push({ name: labels?.[i] ?? runName(run.config), summary: summarize(outcomes), outcomes });
  }
}
const delta: SummaryDelta | undefined = runs.length === 2 && runs[0] && runs[1] ? deltaOf(runs[0].summary, runs[1].summary) : undefined;

const generatedAt = new Date().toISOString();
const stamp = generatedAt.replace(/[:.]/g, '-');
const files = { json: join(outDir, `${stamp}.json`), html: join(outDir, `${stamp}.html`) };
await writeFile(files.json, `${JSON.stringify({ generatedAt, casesPath, cases: cases.length, runs, delta }, null, 2)}\n`);
await writeFile(files.html, renderHtml({ generatedAt, casesPath, runs, delta }));

const [first] = runs;
const summaryObject =
  compare === undefined && first !== undefined
    ? { generatedAt, casesPath, generator: first.name, ...first.summary, cases: cases.length, files }
    : { generatedAt, casesPath, cases: cases.length, compare, runs: Object.fromEntries(runs.map((r) => [r.name, r.summary])), delta, files };

if (args.json) {
  process.stdout.write(`${JSON.stringify(summaryObject)}\n`);
} else {
  const pct = (v: number | null | undefined): string => (v === null || v === undefined ? '–' : `${(v * 100).toFixed(1)}%`);
  const signed = (v: number | null | undefined, asPct: boolean): string =>
    v === null || v === undefined ? '–' : `${v > 0 ? '+' : ''}${asPct ? `${(v * 100).toFixed(1)}%` : String(v)}`;
  const lines: [string, (s: Summary) => string, string?][] = [
    ['category agreement', (s) => pct(s.agreement.category), signed(delta?.agreement.category, true)],
    ['priority in accepted set', (s) => pct(s.agreement.priority), signed(delta?.agreement.priority, true)],
    ['no injected text', (s) => pct(s.agreement.injection), signed(delta?.agreement.injection, true)],
    ['schema-valid rate', (s) => pct(s.schemaValidRate), signed(delta?.schemaValidRate, true)],
    ['latency p50 ms', (s) => String(s.latencyMs.p50 ?? '–'), signed(delta?.latencyMs.p50, false)],
    ['latency p90 ms', (s) => String(s.latencyMs.p90 ?? '–'), signed(delta?.latencyMs.p90, false)],
    ['latency p99 ms', (s) => String(s.latencyMs.p99 ?? '–'), signed(delta?.latencyMs.p99, false)],
    ['tokens in / report', (s) => String(s.tokens.perReport?.input ?? '–'), signed(delta?.tokensPerReport.input, false)],
    ['tokens out / report', (s) => String(s.tokens.perReport?.output ?? '–'), signed(delta?.tokensPerReport.output, false)],
    ['thinking / report', (s) => String(s.tokens.perReport?.thinking ?? '–'), signed(delta?.tokensPerReport.thinking, false)],
    ['held-out category', (s) => pct(s.splits.holdout?.category)],
    ['held-out priority', (s) => pct(s.splits.holdout?.priority)],
    ['development category', (s) => pct(s.splits.development?.category)],
    ['development priority', (s) => pct(s.splits.development?.priority)],
  ];
  const width = 26;
  const header = [...runs.map((r) => r.name), ...(delta ? ['delta'] : [])];
  const rows = lines.map(([label, value, d]): [string, string[]] => [label, [...runs.map((r) => value(r.summary)), ...(delta ? [d ?? ''] : [])]]);
  // Every column is as wide as its longest name or figure plus a gap of two spaces, so that long
  // model names neither run together nor push their figures out of line.
  const col = Math.max(...header.map((h) => h.length), ...rows.flatMap(([, cells]) => cells.map((c) => c.length))) + 2;
  const out = [`${cases.length} cases from ${casesPath}`, `${''.padEnd(width)}${header.map((h) => h.padStart(col)).join('')}`];
  for (const [label, cells] of rows) out.push(`${label.padEnd(width)}${cells.map((c) => c.padStart(col)).join('')}`);
  for (const r of runs) {
    const errors = Object.entries(r.summary.errors);
    if (errors.length > 0) out.push(`${r.name}: cases without a result: ${errors.map(([k, n]) => `${k} x${n}`).join(', ')}`);
  }
  out.push(`results: ${files.json}`, `page:    ${files.html}`);
  process.stdout.write(`${out.join('\n')}\n`);
}

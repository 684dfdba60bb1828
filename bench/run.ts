// `npm run bench`: the service against real PostgreSQL in a fresh
// database, the offline generator (and for the photo scenarios the Gemini adapter
// against a local fake Gemini), loopback only. Prints a table and the targets
// (met / not met: speed goals are reported, never asserted) and writes the figures to
// bench/results/<timestamp>.json. Exits 1 only when a scenario saw an unexpected outcome
// (a socket error, a timeout, or a status the scenario should not produce).
//
// Knobs (all optional): BENCH_PG_URL (an admin URL, default postgres://postgres@127.0.0.1:5432/postgres),
// BENCH_DURATION_S (10), BENCH_WARMUP_S (2), BENCH_SKIP_BASELINE=1,
// BENCH_SERVICE_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof", to profile the service),
// BENCH_SERVICE_ENV (e.g. "DB_POOL_SIZE=20", variables for every service the bench starts),
// BENCH_OVERLOAD_FACTOR (2: the overload offered, in multiples of C),
// BENCH_ONLY=observability (only the POST scenarios with metrics and tracing off and on).
// BENCH_ONLY=images (only the image scenarios: the offline one and the Gemini photo ones).
// BENCH_ONLY=report-read (R54: GET /v1/evidence/reports/{id} beside GET usage, both at 1M stored
// reports of the caller, each with its usage unit).
// BENCH_ONLY=overload (only R52: capacity C closed loop, then 2C open loop with admission control on and off).
// BENCH_OVERLOAD_TRACE=<file> appends every open-loop answer as CSV (rate, due ms, latency ms, status,
// new connection 0/1): where the slow answers of an overload run are.
// BENCH_ONLY=slow (only the 500 creations at once against a two-second generator).
// BENCH_ONLY=pooled (only POST direct and POST through PgBouncer in transaction mode, R47, and the
// statement pass with DATABASE_PREPARED_STATEMENTS=false).
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AutocannonRequestStep } from 'autocannon';
import { countReports, createBenchDatabase, insertReports, usageCounterOf, type BenchDatabase } from './support/database.ts';
import { startImageServer, type ImageServer } from './support/images.ts';
import { startOtlpSink } from './support/otlp-sink.ts';
import { cpuSeconds } from './support/cpu.ts';
import { measureTelemetryCost } from './support/telemetry-cost.ts';
import { runLoad, type LoadSpec } from './support/load.ts';
import { runPhotoScenarios, type PhotoFigures } from './support/photo-scenarios.ts';
import { checkPhotoTargets } from './support/photo-targets.ts';
import { freePort, REPO_ROOT, runNode, startNodeChild, type NodeChild } from './support/processes.ts';
import { renderObservability, renderStatements, renderTable, renderTargets, type ScenarioRow } from './support/report.ts';
import { checkTargets } from './support/targets.ts';
import { imageRequest, REPORTS_PATH, TEXT_REQUEST, USAGE_PATH } from './support/workload.ts';
import { runPgbench } from './support/pgbench.ts';
import { measureStatements, type StatementFigures } from './support/statement-pass.ts';
import { measureCpu } from './support/cpu-share.ts';
import { capacityOf, closedLoop, openLoop, postRequest, renderOverload, sampleSignals, spread, type Outcomes, type OverloadFigures, type OverloadSpec, type SignalSamples } from './support/overload.ts';
import { startPgbouncer } from '../test/support/pgbouncer.ts';

const ADMIN_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
const WARMUP_S = Number(process.env.BENCH_WARMUP_S ?? 2);
const WITH_BASELINE = process.env.BENCH_SKIP_BASELINE !== '1';
const ONLY_OBSERVABILITY = process.env.BENCH_ONLY === 'observability';
const ONLY_IMAGES = process.env.BENCH_ONLY === 'images';
const ONLY_REPORT_READ = process.env.BENCH_ONLY === 'report-read';
const ONLY_OVERLOAD = process.env.BENCH_ONLY === 'overload';
const ONLY_SLOW = process.env.BENCH_ONLY === 'slow';
/** R52: the offered load, in multiples of C (2; another factor shows where the loss begins). */
const OVERLOAD_FACTOR = Number(process.env.BENCH_OVERLOAD_FACTOR ?? 2);
/** R52: seconds of open-loop overload. */
const OVERLOAD_S = Number(process.env.BENCH_OVERLOAD_S ?? 15);
/** R52: seconds of closed-loop load that settle each process before its capacity is measured. */
const SETTLE_S = 10;
/** R52: seconds of closed-loop load that bring the admission-off process back after it sat idle. */
const RELOAD_S = 2;
/** R52: seconds the admission-on process rests after its overload, its queue drained, before its capacity is measured again. */
const DRAIN_S = 2;
const ONLY_POOLED = process.env.BENCH_ONLY === 'pooled';
// The service runs exactly as `npm start` runs it (its node flags from package.json), plus any
// flags the operator of the bench adds.
const ASSIGNMENT = /^[A-Z_][A-Z0-9_]*=/;
const { env: START_ENV, args: START_NODE_ARGS } = startCommand();
// BENCH_SERVICE_ENV="NAME=value ..." adds variables to every service the bench starts, to compare
// settings; a scenario's own settings (admission off) still win.
const SERVICE_EXTRA_ENV = assignments((process.env.BENCH_SERVICE_ENV ?? '').split(' ').filter((word) => word.includes('=')));
const SERVICE_NODE_ARGS = [...START_NODE_ARGS, ...(process.env.BENCH_SERVICE_NODE_ARGS ?? '').split(' ').filter((a) => a !== '')];

/** The service as `npm start` runs it (its Node flags), ready when /readyz answers. */
const startService = (name: string, env: Record<string, string>) => start(name, 'src/main.ts', env, '/readyz', SERVICE_NODE_ARGS);
const CONNECTIONS = 50;
const QUOTA_ROWS = 1_000_000;
const IMAGE_BYTES = 2 * 1024 * 1024;
const SLOW_DELAY_MS = 2000;
const SLOW_REQUESTS = 500;
/** The hand-written handler's reference figure, used when the baseline is skipped. */
const REFERENCE_BASELINE_RPS = 900;

const rows: ScenarioRow[] = [];
const children = new Set<NodeChild>();
let database: BenchDatabase | undefined;
let images: ImageServer | undefined;
let pgbenchTps: number | undefined;
let statements: StatementFigures[] = [];

const log = (message: string) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}`);

async function cleanup(): Promise<void> {
  await Promise.allSettled([...children].map((child) => child.stop()));
  children.clear();
  await images?.close();
  images = undefined;
  await database?.drop().catch((err: unknown) => log(`could not drop ${database?.name}: ${String(err)}`));
}

process.once('SIGINT', () => {
  log('interrupted: stopping children and dropping the bench database');
  void cleanup().finally(() => process.exit(130));
});

/** `npm start` as `[NAME=value ...] exec node [flags] src/main.ts`: its environment and its node flags. */
function startCommand(): { env: Record<string, string>; args: string[] } {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { scripts: { start: string } };
  const words = pkg.scripts.start.split(/\s+/);
  const leading = words.findIndex((word) => !ASSIGNMENT.test(word));
  const env = assignments(words.splice(0, leading === -1 ? words.length : leading));
  if (words[0] === 'exec') words.shift();
  if (words[0] !== 'node' || words.at(-1) !== 'src/main.ts') throw new Error('bench: package.json start is not `[NAME=value] exec node [flags] src/main.ts`');
  return { env, args: words.slice(1, -1) };
}

/** `NAME=value` words as variables (a value may hold '=' itself). */
function assignments(words: readonly string[]): Record<string, string> {
  return Object.fromEntries(words.map((word) => [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)]));
}

async function start(name: string, script: string, env: Record<string, string>, readyPath: string, nodeArgs: string[] = []) {
  const child = await startNodeChild({ name, script, env, port: await freePort(), readyPath, nodeArgs });
  children.add(child);
  return child;
}

async function stop(child: NodeChild): Promise<void> {
  await child.stop();
  children.delete(child);
}

function serviceEnv(dbUrl: string, delayMs: number): Record<string, string> {
  return {
    ...START_ENV,
    // A MALLOC_ARENA_MAX of the bench's own environment wins, to compare allocator settings.
    ...(process.env.MALLOC_ARENA_MAX === undefined ? {} : { MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX }),
    DATABASE_URL: dbUrl,
    HOST: '127.0.0.1',
    // warn: no access-log line per request (the port is chosen by the bench, see processes.ts).
    LOG_LEVEL: 'warn',
    REPORT_GENERATOR: 'offline',
    RATE_LIMIT_REQUESTS: '1000000000',
    // One customer sends all the load: its in-flight limit (R52) is lifted like its rate limit.
    MAX_IN_FLIGHT_PER_CUSTOMER: '0',
    REMOTE_IMAGE_ALLOW_CIDRS: '127.0.0.1/32',
    OFFLINE_GENERATOR_DELAY_MS: String(delayMs),
    ...SERVICE_EXTRA_ENV,
  };
}

async function keyIdOf(dbUrl: string, customerId: string): Promise<string> {
  const out = await runNode('src/cli/admin.ts', ['key', 'list', '--customer', customerId, '--json'], { DATABASE_URL: dbUrl, LOG_LEVEL: 'warn' });
  const id = (JSON.parse(out) as { keys: { apiKeyId: string }[] }).keys[0]?.apiKeyId;
  if (id === undefined) throw new Error('bench: the customer has no key');
  return id;
}

async function bootstrapCustomer(dbUrl: string, name: string): Promise<{ customerId: string; apiKey: string }> {
  const out = await runNode(
    'src/cli/admin.ts',
    ['bootstrap', '--name', `bench ${name}`, '--monthly-limit', '100000000', '--json'],
    { DATABASE_URL: dbUrl, LOG_LEVEL: 'warn' },
  );
  return JSON.parse(out) as { customerId: string; apiKey: string };
}

const json = (apiKey: string) => ({ 'content-type': 'application/json', 'x-api-key': apiKey });
const postStep = (apiKey: string, body: unknown = TEXT_REQUEST): AutocannonRequestStep => ({
  method: 'POST',
  path: REPORTS_PATH,
  headers: json(apiKey),
  body: JSON.stringify(body),
});
const withDistinctKey = (step: AutocannonRequestStep): AutocannonRequestStep => ({
  ...step,
  setupRequest: (request) => ({ ...request, headers: { ...request.headers, 'idempotency-key': `bench-${randomUUID()}` } }),
});
const getUsageStep = (apiKey: string): AutocannonRequestStep => ({
  method: 'GET',
  path: USAGE_PATH,
  headers: { 'x-api-key': apiKey },
});
// Without queueing, the latency of one request shows what the month's volume costs by itself.
const singleConnection = { connections: 1, durationS: 3, warmupS: 1 };
const only = (...statuses: number[]) => (status: number) => statuses.includes(status);

type ScenarioSpec = Partial<LoadSpec> & Pick<LoadSpec, 'requests' | 'expected'>;

async function scenario(key: string, label: string, target: NodeChild, spec: ScenarioSpec) {
  log(`${label} ...`);
  const defaults = { url: target.url, connections: CONNECTIONS, durationS: DURATION_S, warmupS: WARMUP_S, pid: target.pid };
  const figures = await runLoad({ ...defaults, ...spec });
  // A run in which nothing succeeded measured nothing, whatever the expected outcomes were.
  if (figures.responses > 0 && figures.successPerSec === 0) figures.unexpected += figures.responses;
  rows.push({ key, label, target: target.name, figures });
  const { p50, p99 } = figures.latencyMs;
  log(`${label}: ${figures.requestsPerSec} req/s, p50 ${p50} ms, p99 ${p99} ms, peak RSS ${figures.peakRssMiB} MiB`);
  if (figures.unexpected > 0) {
    const seen = JSON.stringify({ ...figures.statuses, ...figures.errorCodes });
    log(`  unexpected outcomes: ${figures.unexpected} ${seen}; ${target.name} said: ${target.output().slice(-1500)}`);
  }
  return figures;
}

/** A fresh process compiles its hot paths first: load both routes once, unmeasured, with a customer of its own. */
async function warmUp(service: NodeChild, apiKey: string): Promise<void> {
  log('warming the service up ...');
  for (const step of [getUsageStep(apiKey), postStep(apiKey)]) {
    await runLoad({ url: service.url, connections: CONNECTIONS, durationS: WARMUP_S * 2, warmupS: 0, requests: [step], expected: () => true });
  }
}

/**
 * R40, R41: what metrics and traces cost a POST. The same POST on a fresh process each time:
 * nothing on, METRICS_PORT set, OTEL_EXPORTER_OTLP_ENDPOINT set (OTLP/HTTP protobuf, every
 * request sampled, to a local sink in this process), and both; BENCH_OBS_ROUNDS times in turn
 * (the machine is shared: the report takes each variant's median). Returns what the sink
 * received against the POSTs the traced processes answered 201 (warm-ups included).
 */
async function observabilityScenarios(dbUrl: string, apiKey: string, warmupKey: string) {
  const rounds = Math.max(1, Number(process.env.BENCH_OBS_ROUNDS ?? 1));
  const sink = await startOtlpSink();
  const tracing = { OTEL_EXPORTER_OTLP_ENDPOINT: sink.endpoint };
  const variants: { key: string; label: string; env: Record<string, string> }[] = [
    { key: 'postObsOff', label: 'POST, metrics and tracing off', env: {} },
    { key: 'postMetrics', label: 'POST, METRICS_PORT set', env: { METRICS_PORT: '0' } },
    { key: 'postTracing', label: 'POST, OTLP tracing on', env: tracing },
    { key: 'postMetricsTracing', label: 'POST, metrics and tracing on', env: { METRICS_PORT: '0', ...tracing } },
  ];
  let tracedPosts = 0;
  // The service's CPU milliseconds per POST of each run (its warm-up load included: every POST
  // stores one report, so the reports stored in between count the POSTs exactly).
  const cpuMsPerPost: Record<string, number[]> = {};
  try {
    for (let round = 1; round <= rounds; round++) {
      for (const variant of variants) {
        const traced = 'OTEL_EXPORTER_OTLP_ENDPOINT' in variant.env;
        const reportsBefore = traced ? await countReports(dbUrl) : 0;
        const service = await startService(variant.label, { ...serviceEnv(dbUrl, 0), ...variant.env });
        await warmUp(service, warmupKey);
        const label = rounds > 1 ? `${variant.label} (round ${round})` : variant.label;
        const [cpuBefore, postsBefore] = [cpuSeconds(service.pid), await countReports(dbUrl)];
        await scenario(rounds > 1 ? `${variant.key}#${round}` : variant.key, label, service, { requests: [postStep(apiKey)], expected: only(201) });
        const posts = (await countReports(dbUrl)) - postsBefore;
        (cpuMsPerPost[variant.key] ??= []).push(Math.round((100_000 * (cpuSeconds(service.pid) - cpuBefore)) / posts) / 100);
        await stop(service); // SIGTERM: the tracer exports what it still holds
        if (traced) tracedPosts += (await countReports(dbUrl)) - reportsBefore;
      }
    }
    log('the telemetry hooks of one POST, in this process ...');
    return { ...sink.figures(), tracedPosts, cpuMsPerPost, hookCpuMicros: await measureTelemetryCost() };
  } finally {
    await sink.close();
  }
}

/** A measured load on the process `pid`, with where the processor time went meanwhile (support/cpu-share.ts). */
async function withCpu(pid: number, load: () => Promise<Outcomes>): Promise<Outcomes> {
  const cpu = measureCpu(pid);
  const outcomes = await load();
  outcomes.cpu = cpu.stop(outcomes.statuses['201'] ?? 0);
  return outcomes;
}

/**
 * R52: capacity C of text POSTs (closed loop, 50 connections) on a service with admission
 * control off (ADMISSION_MAX_QUEUE_MS=0) and one with it on; C is the larger. Then 2C offered
 * open loop for OVERLOAD_S on each (support/overload.ts).
 *
 * The order is the one an operator (or an outside check) follows on one instance: the
 * admission-on process is loaded, its capacity measured, and the overload offered right after.
 * The admission-off process goes first and, before its own overload, is loaded again for two
 * seconds: it sat idle meanwhile, and V8 shrinks an idle process's heap (its young generation
 * then collects more often for the first seconds of load). Each capacity is measured on a
 * settled process (SETTLE_S): measured a few seconds after start, C came out 5-10% lower and
 * the goodput ratio looked better than it is (bench/README.md). The admission-on process's
 * capacity is measured once more after its overload, to show how far the machine drifted.
 */
async function overloadScenarios(dbUrl: string, apiKey: string, warmupKey: string): Promise<OverloadFigures & { signals: SignalSamples[] }> {
  /** The closed loop whose 201 rate is a capacity C, with where the processor time went. */
  const measuredClosedLoop = async (label: string, pid: number, spec: OverloadSpec) => {
    log(`${label}: closed loop, ${CONNECTIONS} connections, ${DURATION_S} s ...`);
    const capacity = await withCpu(pid, () => closedLoop(spec, CONNECTIONS, DURATION_S));
    log(`  C = ${capacity.goodputPerSec}/s, p99 ${capacity.p99Of201Ms} ms`);
    return capacity;
  };
  const measureCapacity = async (variant: { name: string; env: Record<string, string> }) => {
    const metricsPort = await freePort();
    const service = await startService(variant.name, { ...serviceEnv(dbUrl, 0), METRICS_PORT: String(metricsPort), ...variant.env });
    await warmUp(service, warmupKey);
    const spec = { url: service.url, request: postRequest(service.url, REPORTS_PATH, json(apiKey), JSON.stringify(TEXT_REQUEST)) };
    // Ten more seconds of the same load before measuring: a process a few seconds old is still
    // getting faster (JIT tiers, heap sizing), and measured then its C comes out 5-10% low,
    // which would flatter the goodput ratio (bench/README.md).
    await closedLoop(spec, CONNECTIONS, SETTLE_S);
    const capacity = await measuredClosedLoop(`capacity, ${variant.name}`, service.pid, spec);
    return { name: variant.name, service, metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`, spec, capacity };
  };
  const overload = async ({ name, service, metricsUrl, spec }: Awaited<ReturnType<typeof measureCapacity>>, rate: number) => {
    log(`2C = ${rate}/s open loop for ${OVERLOAD_S} s, ${name} ...`);
    const sampler = sampleSignals(metricsUrl);
    const outcomes = await withCpu(service.pid, () => openLoop(spec, rate, OVERLOAD_S));
    const seen = sampler.stop();
    log(`  ${JSON.stringify(outcomes)}`);
    log(
      `  signals (min / median / max): limit ${spread(seen.limit)}, running ${spread(seen.running)}, queued ${spread(seen.queued)}, ` +
        `event-loop lag p99 ${spread(seen.loopLagP99Ms)} ms, database waiting ${spread(seen.databaseWaiting)}`,
    );
    return { outcomes, seen };
  };
  const serviceOff = await measureCapacity({ name: 'service (admission off)', env: { ADMISSION_MAX_QUEUE_MS: '0' } });
  const serviceOn = await measureCapacity({ name: 'service (admission on)', env: {} });
  const capacities = { capacityOn: serviceOn.capacity, capacityOff: serviceOff.capacity };
  const rate = Math.round(OVERLOAD_FACTOR * capacityOf(capacities).goodputPerSec);
  const on = await overload(serviceOn, rate);
  // The same process's closed loop again, once the overload's queue has drained: how far the
  // machine's own speed moved between the two windows (the same process's 10 s closed loop moved
  // by up to 12% within a minute on this machine, bench/README.md), so that a goodput ratio can
  // be read against it. The verdict stays against C, measured before.
  await sleep(DRAIN_S * 1000);
  const capacityOnAfter = await measuredClosedLoop(`capacity again, ${serviceOn.name}, after the overload`, serviceOn.service.pid, serviceOn.spec);
  await stop(serviceOn.service);
  log(`the admission-off process, loaded again for ${RELOAD_S} s after sitting idle ...`);
  await closedLoop(serviceOff.spec, CONNECTIONS, RELOAD_S);
  const off = await overload(serviceOff, rate);
  await stop(serviceOff.service);
  return { ...capacities, capacityOnAfter, offeredRate: rate, on: on.outcomes, off: off.outcomes, signals: [on.seen, off.seen] };
}

/**
 * R47: the same POST through Debian's PgBouncer in pool_mode = transaction (stock settings, its
 * pool of 20 server connections), the service with DATABASE_PREPARED_STATEMENTS=false and
 * DATABASE_DIRECT_URL on the server itself. Printed beside the direct POST.
 */
async function pooledScenario(dbUrl: string, apiKey: string, warmupKey: string): Promise<void> {
  const bouncer = await startPgbouncer(dbUrl, { max_client_conn: '1000', default_pool_size: '20' });
  try {
    const service = await startService('service (PgBouncer)', {
      ...serviceEnv(bouncer.urlFor(dbUrl), 0),
      DATABASE_PREPARED_STATEMENTS: 'false',
      DATABASE_DIRECT_URL: dbUrl,
    });
    await warmUp(service, warmupKey);
    await scenario('postPooled', 'POST report, through PgBouncer (transaction mode)', service, { requests: [postStep(apiKey)], expected: only(201) });
    await stop(service);
  } finally {
    await bouncer.stop();
  }
}

/** 500 creations at once against a two-second generator (shedding off; see the comment inside). */
async function slowScenario(dbUrl: string, customers: { warmup: { apiKey: string }; slow: { apiKey: string } }): Promise<void> {
  // This scenario measures holding many slow generator calls at once; with admission control on,
  // a burst of 500 two-second requests arriving together is partly refused while the adaptive
  // limit grows (R52, measured by the overload scenarios), so it runs with shedding off.
  const service = await startService('service (2 s generator)', { ...serviceEnv(dbUrl, SLOW_DELAY_MS), ADMISSION_MAX_QUEUE_MS: '0' });
  await warmUp(service, customers.warmup.apiKey);
  // Like every other scenario, the burst is measured after a warm-up of its own shape: one
  // unmeasured burst of as many new connections (another customer), so the measured one does
  // not pay for compiling the connection-accept path.
  await runLoad({
    url: service.url,
    connections: SLOW_REQUESTS,
    amount: SLOW_REQUESTS,
    warmupS: 0,
    requests: [postStep(customers.warmup.apiKey)],
    expected: () => true,
  });
  await scenario('slow', `POST, ${SLOW_DELAY_MS} ms generator, ${SLOW_REQUESTS} at once`, service, {
    connections: SLOW_REQUESTS,
    amount: SLOW_REQUESTS,
    warmupS: 0,
    requests: [postStep(customers.slow.apiKey)],
    readErrorCodes: true,
    expected: only(201),
  });
  await stop(service);
}

async function run(): Promise<{
  overload?: Awaited<ReturnType<typeof overloadScenarios>>;
  quotaInsert?: { rows: number; seconds: number; counter: number };
  photos?: PhotoFigures;
  otlp?: Awaited<ReturnType<typeof observabilityScenarios>>;
}> {
  database = await createBenchDatabase(ADMIN_URL);
  log(`database ${database.name} (PostgreSQL ${database.serverVersion})`);
  const dbUrl = database.url;

  if (!ONLY_OBSERVABILITY && !ONLY_IMAGES && !ONLY_OVERLOAD && !ONLY_POOLED && !ONLY_SLOW) {
    const ceiling = await start('ceiling', 'bench/ceiling-server.ts', {}, '/');
    await scenario('ceiling', 'node:http fixed body (ceiling)', ceiling, { requests: [{ method: 'GET', path: '/' }], expected: only(200) });
    await stop(ceiling);
  }

  const service = await startService('service', serviceEnv(dbUrl, 0));
  const customers = {
    post: await bootstrapCustomer(dbUrl, 'post'),
    quota: await bootstrapCustomer(dbUrl, 'quota'),
    baseline: await bootstrapCustomer(dbUrl, 'baseline'),
    images: await bootstrapCustomer(dbUrl, 'images'),
    slow: await bootstrapCustomer(dbUrl, 'slow'),
    photos: await bootstrapCustomer(dbUrl, 'photos'),
    warmup: await bootstrapCustomer(dbUrl, 'warm-up'),
  };
  if (ONLY_OVERLOAD) {
    await stop(service);
    return { overload: await overloadScenarios(dbUrl, customers.post.apiKey, customers.warmup.apiKey) };
  }
  if (ONLY_SLOW) {
    await stop(service);
    await slowScenario(dbUrl, customers);
    return {};
  }
  await warmUp(service, customers.warmup.apiKey);
  if (ONLY_REPORT_READ) {
    // R54: one statement on the primary key, so the read costs the same at any number of reports.
    log(`inserting ${QUOTA_ROWS} reports, each with its usage unit, for the quota customer ...`);
    const insertStarted = performance.now();
    const reportId = await insertReports(dbUrl, customers.quota.customerId, await keyIdOf(dbUrl, customers.quota.customerId), QUOTA_ROWS);
    log(`inserted in ${Math.round((performance.now() - insertStarted) / 100) / 10} s`);
    const readStep: AutocannonRequestStep = { method: 'GET', path: `${REPORTS_PATH}/${reportId}`, headers: { 'x-api-key': customers.quota.apiKey } };
    await scenario('getReport1m', 'GET report, 1M reports of the caller', service, { requests: [readStep], expected: only(200) });
    await scenario('get1m', 'GET usage, 1M records in month', service, { requests: [getUsageStep(customers.quota.apiKey)], expected: only(200) });
    await scenario('getReport1mSingle', 'GET report, 1M reports, 1 connection', service, { ...singleConnection, requests: [readStep], expected: only(200) });
    await scenario('get1mSingle', 'GET usage, 1M records, 1 connection', service, {
      ...singleConnection,
      requests: [getUsageStep(customers.quota.apiKey)],
      expected: only(200),
    });
    await stop(service);
    statements = await measureStatements({
      dbUrl,
      start: (env) => startService('service (counted)', { ...serviceEnv(dbUrl, 0), ...env }),
      stop,
      apiKey: customers.quota.apiKey,
      reportId,
    });
    return {};
  }
  if (ONLY_POOLED) {
    await scenario('post', 'POST report, no Idempotency-Key', service, { requests: [postStep(customers.post.apiKey)], expected: only(201) });
    await stop(service);
    await pooledScenario(dbUrl, customers.post.apiKey, customers.warmup.apiKey);
    log('counting statements per request, prepared statements off ...');
    statements = await measureStatements({
      dbUrl,
      start: (env) => startService('service (counted, unnamed)', { ...serviceEnv(dbUrl, 0), DATABASE_PREPARED_STATEMENTS: 'false', ...env }),
      stop,
      apiKey: customers.post.apiKey,
    });
    for (const row of statements) log(`${row.request}: ${row.statementsPerRequest} statements, ${row.roundTripsPerRequest} round trips, ${row.commitsPerRequest} commits per request`);
    return {};
  }
  if (ONLY_OBSERVABILITY) {
    await stop(service);
    return { otlp: await observabilityScenarios(dbUrl, customers.post.apiKey, customers.warmup.apiKey) };
  }

  if (WITH_BASELINE && !ONLY_IMAGES && !ONLY_POOLED) {
    // The same hand-written handler on two frameworks (support/baseline-handler.ts).
    for (const [key, label, script] of [
      ['baseline', 'baseline Koa+pg POST (auth, SUM, 2-insert tx)', 'bench/baseline-server.ts'],
      ['baselineFastify', 'baseline Fastify+pg POST (same handler)', 'bench/baseline-fastify-server.ts'],
    ] as const) {
      const baseline = await start(key, script, { DATABASE_URL: dbUrl }, '/healthz');
      await scenario(key, label, baseline, { requests: [postStep(customers.baseline.apiKey)], expected: only(201) });
      await stop(baseline);
    }
    // The durable write alone, by PostgreSQL's own client: BEGIN, two INSERTs, COMMIT.
    log('pgbench: BEGIN, report INSERT, usage INSERT, COMMIT ...');
    const apiKeyId = await keyIdOf(dbUrl, customers.baseline.customerId);
    pgbenchTps = await runPgbench({ url: dbUrl, customerId: customers.baseline.customerId, apiKeyId, clients: CONNECTIONS, durationS: DURATION_S });
    log(pgbenchTps === undefined ? 'pgbench is not installed: its comparison is n/a' : `pgbench: ${pgbenchTps} transactions/s`);
  }

  let quotaInsert: { rows: number; seconds: number; counter: number } | undefined;
  let reportIdAt1m: string | undefined;
  if (!ONLY_IMAGES) {
    // GET before the POST runs: the quota customer has 0 records, and PostgreSQL has no
    // after-work of thousands of inserts (WAL, autovacuum) still running.
    await scenario('get', 'GET usage, 0 records in month', service, { requests: [getUsageStep(customers.quota.apiKey)], expected: only(200) });
    await scenario('getSingle', 'GET usage, 0 records, 1 connection', service, {
      ...singleConnection,
      requests: [getUsageStep(customers.quota.apiKey)],
      expected: only(200),
    });
    await scenario('post', 'POST report, no Idempotency-Key', service, { requests: [postStep(customers.post.apiKey)], expected: only(201) });
    await scenario('postIdempotent', 'POST report, distinct Idempotency-Key', service, {
      requests: [withDistinctKey(postStep(customers.post.apiKey))],
      expected: only(201),
    });
    await pooledScenario(dbUrl, customers.post.apiKey, customers.warmup.apiKey);

    // One million stored reports of the quota customer, each with its usage unit (R15): GET usage
    // reads their total from one counter row, GET report reads one by its primary key (R54).
    log(`inserting ${QUOTA_ROWS} reports, each with its usage unit, for the quota customer ...`);
    const insertStarted = performance.now();
    const reportId = await insertReports(dbUrl, customers.quota.customerId, await keyIdOf(dbUrl, customers.quota.customerId), QUOTA_ROWS);
    const counter = await usageCounterOf(dbUrl, customers.quota.customerId);
    quotaInsert = { rows: QUOTA_ROWS, seconds: Math.round((performance.now() - insertStarted) / 100) / 10, counter };
    log(`inserted in ${quotaInsert.seconds} s; usage_counter says ${counter}`);
    if (counter !== QUOTA_ROWS) throw new Error(`usage_counter is ${counter} after inserting ${QUOTA_ROWS} reports`);
    reportIdAt1m = reportId;

    const readStep: AutocannonRequestStep = { method: 'GET', path: `${REPORTS_PATH}/${reportId}`, headers: { 'x-api-key': customers.quota.apiKey } };
    await scenario('get1m', 'GET usage, 1M records in month', service, { requests: [getUsageStep(customers.quota.apiKey)], expected: only(200) });
    await scenario('get1mSingle', 'GET usage, 1M records, 1 connection', service, {
      ...singleConnection,
      requests: [getUsageStep(customers.quota.apiKey)],
      expected: only(200),
    });
    await scenario('getReport1m', 'GET report, 1M reports of the caller', service, { requests: [readStep], expected: only(200) });
    await scenario('getReport1mSingle', 'GET report, 1M reports, 1 connection', service, { ...singleConnection, requests: [readStep], expected: only(200) });
    await scenario('post1m', 'POST report, 1M records in month', service, { requests: [postStep(customers.quota.apiKey)], expected: only(201) });
  }

  images = await startImageServer(IMAGE_BYTES);
  await scenario('images', 'POST with 4 images of 2 MiB', service, {
    requests: [postStep(customers.images.apiKey, imageRequest(images.urls))],
    readErrorCodes: true,
    // 50 x 4 images exceed what the normalization queue admits (R38) and can exceed
    // IMAGE_BYTES_IN_FLIGHT_MAX: the service then answers 503 remote_evidence_image_unavailable
    // at once, never queues (R22, src/images/README.md). That is the service's designed overload
    // answer, reported in the table, not a failure; so is admission control's refusal of a
    // saturated instance (R52, 503 report_generation_unavailable before authentication).
    expected: (status, code) => status === 201 || (status === 503 && (code === 'remote_evidence_image_unavailable' || code === 'report_generation_unavailable')),
  });
  log(`image server answered ${images.served()} image requests`);
  await images.close();
  images = undefined;
  await stop(service);

  const photos = await runPhotoScenarios({
    scenario,
    startService,
    stopService: stop,
    serviceEnv: serviceEnv(dbUrl, 0),
    apiKey: customers.photos.apiKey,
    log,
  });
  if (ONLY_IMAGES) return { quotaInsert, photos };

  await slowScenario(dbUrl, customers);

  // Statements per request, counted on the wire in a pass of its own.
  log('counting statements per request ...');
  statements = await measureStatements({
    dbUrl,
    start: (env) => startService('service (counted)', { ...serviceEnv(dbUrl, 0), ...env }),
    stop,
    apiKey: reportIdAt1m === undefined ? customers.post.apiKey : customers.quota.apiKey,
    ...(reportIdAt1m === undefined ? {} : { reportId: reportIdAt1m }),
  });
  for (const row of statements) log(`${row.request}: ${row.statementsPerRequest} statements, ${row.roundTripsPerRequest} round trips, ${row.commitsPerRequest} commits per request`);
  const otlp = await observabilityScenarios(dbUrl, customers.post.apiKey, customers.warmup.apiKey);
  // R52: capacity, then twice it offered open loop, with admission control on and off.
  const overload = await overloadScenarios(dbUrl, customers.post.apiKey, customers.warmup.apiKey);
  return { quotaInsert, photos, otlp, overload };
}

const startedAt = new Date();
// The machine may be shared: its load before and after the run goes with the figures.
const loadBefore = loadavg().map((n) => Math.round(n * 100) / 100);
let failure: unknown;
let extra: Awaited<ReturnType<typeof run>> | undefined;
try {
  extra = await run();
} catch (error) {
  failure = error;
} finally {
  await cleanup();
}

const checks = [
  ...(ONLY_IMAGES || ONLY_OBSERVABILITY || ONLY_REPORT_READ || ONLY_OVERLOAD || ONLY_POOLED
    ? []
    : checkTargets(rows, { slowRequests: SLOW_REQUESTS, referenceBaselineRps: REFERENCE_BASELINE_RPS, pgbenchTps, statements })),
  ...(extra?.photos ? checkPhotoTargets(rows, extra.photos) : []),
];
const loadAfter = loadavg().map((n) => Math.round(n * 100) / 100);
const machine = {
  node: process.version,
  cpus: cpus().length,
  cpuModel: cpus()[0]?.model ?? '?',
  memoryGiB: Math.round(totalmem() / 2 ** 30),
  postgres: database?.serverVersion ?? '?',
  loadBefore,
  loadAfter,
};
console.log(
  `\nEvidence Report Service benchmark, ${startedAt.toISOString()}: Node ${machine.node}, ${machine.cpus} x ${machine.cpuModel}, ` +
    `${machine.memoryGiB} GiB, PostgreSQL ${machine.postgres}; ${DURATION_S} s measured after ${WARMUP_S} s warm-up, ` +
    `${CONNECTIONS} connections; load average ${loadBefore.join(' ')} before, ${loadAfter.join(' ')} after\n`,
);
console.log(renderTable(rows));
if (pgbenchTps !== undefined) console.log(`\npgbench, the same durable write (BEGIN, 2 INSERTs, COMMIT), ${CONNECTIONS} clients: ${pgbenchTps} transactions/s`);
if (statements.length > 0) console.log(`\nStatements per request, counted on the wire (sequential pass):\n${renderStatements(statements)}`);
if (extra?.quotaInsert) {
  const { rows: inserted, seconds, counter } = extra.quotaInsert;
  console.log(`\n${inserted} usage records inserted in ${seconds} s (usage_counter: ${counter})`);
}
const observability = renderObservability(rows, extra?.otlp);
if (observability) console.log(`\nObservability, what metrics and tracing cost (reported, not enforced):\n${observability}`);
if (extra?.overload) {
  console.log(`\nOverload (R52; reported, not enforced). C with admission on ${extra.overload.capacityOn.goodputPerSec}/s, off ${extra.overload.capacityOff.goodputPerSec}/s (C is the larger):\n${renderOverload(extra.overload)}`);
}
if (!ONLY_OBSERVABILITY && !ONLY_OVERLOAD && !ONLY_POOLED) console.log(`\nTargets: throughput, GET usage at 1M records, memory under load, statements per request, photos (reported, not enforced):\n${renderTargets(checks)}`);

const results = {
  startedAt: startedAt.toISOString(),
  command: 'npm run bench',
  machine,
  settings: {
    durationS: DURATION_S,
    warmupS: WARMUP_S,
    connections: CONNECTIONS,
    quotaRows: QUOTA_ROWS,
    imageBytes: IMAGE_BYTES,
    slowDelayMs: SLOW_DELAY_MS,
    slowRequests: SLOW_REQUESTS,
    baseline: WITH_BASELINE,
    only: process.env.BENCH_ONLY,
  },
  scenarios: Object.fromEntries(rows.map((r) => [r.key, { label: r.label, process: r.target, ...r.figures }])),
  quotaInsert: extra?.quotaInsert,
  overload: extra?.overload,
  pgbenchTps,
  statements,
  otlp: extra?.otlp,
  photos: extra?.photos,
  targets: checks,
  error: failure === undefined ? undefined : String(failure),
};
mkdirSync(`${REPO_ROOT}bench/results`, { recursive: true });
const file = `bench/results/${startedAt.toISOString().replace(/[:.]/g, '-')}.json`;
writeFileSync(`${REPO_ROOT}${file}`, `${JSON.stringify(results, null, 2)}\n`);
console.log(`\nResults: ${file}`);

const unexpected = rows.filter((r) => r.figures.unexpected > 0);
if (failure !== undefined) {
  console.error(`bench failed: ${failure instanceof Error ? failure.stack : String(failure)}`);
  process.exit(1);
}
if (unexpected.length > 0) {
  console.error(`unexpected outcomes in: ${unexpected.map((r) => `${r.label} (${r.figures.unexpected})`).join(', ')}`);
  process.exit(1);
}
process.exit(0);

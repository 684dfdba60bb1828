// The Prometheus metrics of R40, on a registry of their own (not prom-client's global one, so
// two services in one process never share series). Names and labels are the operator
// interface's, exactly; label values come from the closed lists of label-values.ts. Gauges
// that mirror a state (pool, image bytes) are read at scrape time, never on the request path.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { GENERATION_OUTCOMES, type GenerationOutcome, type ImageOutcome, type Operation } from './label-values.ts';
import { STEP_LABELS, type StepLabel } from './step-labels.ts';
import type { Mode } from '../accounts/mode.ts';
import { REJECTED_REASONS, UNAVAILABLE_REASONS } from '../images/image-fetch-error.ts';
import { ATTEMPT_OUTCOMES, type AttemptOutcome, type GenerationObserver, type GenerationTokens } from '../generation/report-generator.ts';
import { ADMISSION_REJECTIONS, type AdmissionRejection } from './telemetry.ts';

/** What the `pg` pool tells at any moment (pg.Pool's own counters). */
export interface PoolCounts {
  readonly totalCount: number;
  readonly idleCount: number;
  readonly waitingCount: number;
}

/** R52: what admission control holds now. */
export interface AdmissionState {
  readonly limit: number;
  readonly active: number;
  readonly queued: number;
}

interface MetricSources {
  /** The ORM's `pg` pool, the one every hot-path statement uses (src/db/sql.ts). */
  readonly pool?: PoolCounts;
  /** Its configured size (DB_POOL_SIZE), so "busy near max" can be alerted on. */
  readonly poolMax?: number;
  /** The process-wide image byte budget (src/images/byte-budget.ts). */
  readonly imageBudget?: { readonly used: number };
  /** R52: the admission controller, read at scrape time. */
  readonly admission?: () => AdmissionState | undefined;
  readonly generator: 'offline' | 'gemini';
  /** R42, R43: the `model` label's closed list: the configured models; default `offline` alone. */
  readonly models?: readonly string[];
}

const TOKEN_KINDS = ['input', 'output', 'thinking'] as const;

// Seconds. Requests are milliseconds when healthy; generation is seconds and bounded by
// GENERATOR_TIMEOUT_MS (30 s by default), so its buckets reach past it. The request buckets
// also mark the bounds the rulings set, so a quantile can show them held: 2 s (/readyz, R51),
// 8 s (a dependency that hangs fails closed within its two bounds plus a second by default,
// R33), and past the 30 s generator bound (a POST may add images and the database to it).
const REQUEST_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 2.5, 5, 8, 10, 15, 30, 45, 60];
const GENERATION_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60];

const LINT_FAILING_DEFAULTS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

export class ServiceMetrics {
  readonly registry = new Registry();
  readonly #requests: Counter<'operation' | 'status' | 'code'>;
  readonly #testModeRequests: Counter<'operation' | 'status' | 'code'>;
  readonly #requestSeconds: Histogram<'operation'>;
  readonly #stepSeconds: Histogram<'step'>;
  readonly #generationSeconds: Histogram<'generator' | 'outcome'>;
  readonly #imageFetches: Counter<'outcome' | 'reason'>;
  readonly #reportsCreated: Counter;
  readonly #testModeReportsCreated: Counter;
  readonly #generatorAttempts: Counter<'model' | 'outcome'>;
  readonly #generatorTokens: Counter<'model' | 'kind'>;
  readonly #admissionRejections: Counter<'reason'>;
  readonly #generator: 'offline' | 'gemini';
  readonly #models: ReadonlySet<string>;

  constructor(sources: MetricSources) {
    const registers = [this.registry];
    this.#generator = sources.generator;
    this.#models = new Set(sources.models ?? ['offline']);
    collectDefaultMetrics({ register: this.registry });
    // prom-client's defaults, less three gauges named like counters, which `promtool check
    // metrics` refuses; the same counts stay available by type (nodejs_active_handles{type} ...).
    for (const name of LINT_FAILING_DEFAULTS) this.registry.removeSingleMetric(name);
    // R53: a test key's traffic is counted apart, as its ledger is kept apart. The names of
    // operator-interface.md keep exactly their labels (R40: dashboards and alert rules depend on
    // them) and count live traffic, so an integrator's CI that makes 5xx answers on purpose with
    // error triggers neither pages anyone nor moves the live figures.
    this.#requests = new Counter({
      name: 'ers_http_requests_total',
      help: 'API requests answered, by operationId (or other), HTTP status and error code (or none); test-mode keys are counted in ers_test_mode_requests_total (R53).',
      labelNames: ['operation', 'status', 'code'],
      registers,
    });
    this.#testModeRequests = new Counter({
      name: 'ers_test_mode_requests_total',
      help: 'API requests made with a test-mode key (R53), by operationId, HTTP status and error code (or none).',
      labelNames: ['operation', 'status', 'code'],
      registers,
    });
    this.#requestSeconds = new Histogram({
      name: 'ers_http_request_duration_seconds',
      help: 'Time from the first byte of a request to its answer, by operationId (or other).',
      labelNames: ['operation'],
      buckets: REQUEST_BUCKETS,
      registers,
    });
    this.#stepSeconds = new Histogram({
      name: 'ers_pipeline_step_duration_seconds',
      help: 'Time spent in each step of the report pipeline that ran (spec section 1).',
      labelNames: ['step'],
      buckets: REQUEST_BUCKETS,
      registers,
    });
    this.#generationSeconds = new Histogram({
      name: 'ers_report_generation_duration_seconds',
      help: 'Report generations by generator and outcome (ok, invalid, failed, unavailable; R24), result check included.',
      labelNames: ['generator', 'outcome'],
      buckets: GENERATION_BUCKETS,
      registers,
    });
    this.#imageFetches = new Counter({
      name: 'ers_image_fetches_total',
      help: 'Remote evidence images: accepted, or the one that failed its request, with the boundary reason (R22, R23).',
      labelNames: ['outcome', 'reason'],
      registers,
    });
    this.#reportsCreated = new Counter({
      name: 'ers_reports_created_total',
      help: 'Live reports stored, each with its usage unit (steps 9-10 committed, R15); test-mode ones are in ers_test_mode_reports_created_total (R53).',
      registers,
    });
    this.#testModeReportsCreated = new Counter({
      name: 'ers_test_mode_reports_created_total',
      help: 'Test-mode reports stored, each with its unit on the test ledger (R53).',
      registers,
    });
    this.#generatorAttempts = new Counter({
      name: 'ers_generator_attempts_total',
      help: 'Attempts on each model of GEMINI_MODEL (or offline) by outcome: ok, not_found, rate_limited, unavailable, failed, invalid (R42).',
      labelNames: ['model', 'outcome'],
      registers,
    });
    this.#generatorTokens = new Counter({
      name: 'ers_generator_tokens_total',
      help: 'Tokens of the generator answers by model (or offline) and kind: input, output, thinking (R43).',
      labelNames: ['model', 'kind'],
      registers,
    });
    // Which configured model is the primary (0) and which the fallbacks (1, 2, ...): alert rules
    // join the attempts on it (ops/prometheus/alerts.yml, ErsGeneratorPrimaryModelNotFound).
    const position = new Gauge({
      name: 'ers_generator_model_position',
      help: 'Position of each model in GEMINI_MODEL: 0 is the primary, then the fallbacks in order (R42).',
      labelNames: ['model'],
      registers,
    });
    for (const [index, model] of [...this.#models].entries()) position.set({ model }, index);
    this.#admissionRejections = new Counter({
      name: 'ers_admission_rejections_total',
      help: 'Requests refused by admission control (R52): customer_in_flight (429 at step 3) or saturated (503 before authentication).',
      labelNames: ['reason'],
      registers,
    });
    new Gauge({
      name: 'ers_image_bytes_in_flight',
      help: 'Image bytes held in memory now, against IMAGE_BYTES_IN_FLIGHT_MAX.',
      registers,
      collect() {
        this.set(sources.imageBudget?.used ?? 0);
      },
    });
    new Gauge({
      name: 'ers_db_pool_connections',
      help: 'Connections of the database pool by state: idle, busy (checked out) and waiting (callers queued for one).',
      labelNames: ['state'],
      registers,
      collect() {
        const pool = sources.pool;
        this.set({ state: 'idle' }, pool?.idleCount ?? 0);
        this.set({ state: 'busy' }, pool ? pool.totalCount - pool.idleCount : 0);
        this.set({ state: 'waiting' }, pool?.waitingCount ?? 0);
      },
    });
    new Gauge({
      name: 'ers_admission_requests',
      help: 'API requests admission control holds now (R52): running (on a place; one waiting on the generator lends its own) and queued (waiting to start), with its adaptive concurrency limit.',
      labelNames: ['state'],
      registers,
      collect() {
        const state = sources.admission?.();
        this.set({ state: 'running' }, state?.active ?? 0);
        this.set({ state: 'queued' }, state?.queued ?? 0);
        this.set({ state: 'limit' }, state?.limit ?? 0);
      },
    });
    const poolMax = new Gauge({ name: 'ers_db_pool_max_connections', help: "Size of the database pool: DB_POOL_SIZE, or the embedded database's fixed pool of 4.", registers });
    poolMax.set(sources.poolMax ?? 0);
    this.#zero();
  }

  // Series of the closed lists exist from the start at 0, so that rate() and ratios in alert
  // rules see a value rather than nothing before the first event.
  #zero(): void {
    for (const step of STEP_LABELS) this.#stepSeconds.zero({ step });
    for (const outcome of GENERATION_OUTCOMES) this.#generationSeconds.zero({ generator: this.#generator, outcome });
    this.#imageFetches.inc({ outcome: 'accepted', reason: 'none' }, 0);
    for (const reason of REJECTED_REASONS) this.#imageFetches.inc({ outcome: 'rejected', reason }, 0);
    for (const reason of UNAVAILABLE_REASONS) this.#imageFetches.inc({ outcome: 'unavailable', reason }, 0);
    for (const model of this.#models) {
      for (const outcome of ATTEMPT_OUTCOMES) this.#generatorAttempts.inc({ model, outcome }, 0);
      for (const kind of TOKEN_KINDS) this.#generatorTokens.inc({ model, kind }, 0);
    }
    for (const reason of ADMISSION_REJECTIONS) this.#admissionRejections.inc({ reason }, 0);
  }

  /** R42, R43: what the generator reports, on labels of configured models only. */
  readonly generatorObserver: GenerationObserver = Object.freeze({
    attempt: (model: string, outcome: AttemptOutcome): void => {
      if (this.#models.has(model)) this.#generatorAttempts.inc({ model, outcome });
    },
    tokens: (model: string, tokens: GenerationTokens): void => {
      if (!this.#models.has(model)) return;
      for (const kind of TOKEN_KINDS) if (tokens[kind] > 0) this.#generatorTokens.inc({ model, kind }, tokens[kind]);
    },
  });

  request(operation: Operation, status: string, code: string, mode: Mode, seconds: number): void {
    (mode === 'test' ? this.#testModeRequests : this.#requests).inc({ operation, status, code });
    // R53: a test key's requests move no live figure, their latencies neither.
    if (mode !== 'test') this.#requestSeconds.observe({ operation }, seconds);
  }

  step(step: StepLabel, seconds: number): void {
    this.#stepSeconds.observe({ step }, seconds);
  }

  /** `generator`: the one that ran (test mode's offline one, R53); the configured one by default. */
  generation(outcome: GenerationOutcome, seconds: number, generator: 'offline' | 'gemini' = this.#generator): void {
    this.#generationSeconds.observe({ generator, outcome }, seconds);
  }

  imageFetches(outcome: ImageOutcome, reason: string, count: number): void {
    this.#imageFetches.inc({ outcome, reason }, count);
  }

  reportCreated(mode: Mode): void {
    (mode === 'test' ? this.#testModeReportsCreated : this.#reportsCreated).inc();
  }

  admissionRejected(reason: AdmissionRejection): void {
    this.#admissionRejections.inc({ reason });
  }

  /** The exposition of every metric, in the Prometheus text format. */
  exposition(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

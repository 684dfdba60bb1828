// One evaluation run (R46) through the production path: the generator the configuration names
// (createReportGenerator, as the service composes it), images fetched and normalized by the
// service's image boundary from the local image host, and each answer built by the service's
// own result checks (R24). Cases run with bounded concurrency.
import pino from 'pino';
import type { Logger } from 'pino';
import { ConfigError, loadConfig } from '../src/config.ts';
import type { Config } from '../src/config.ts';
import { createReportGenerator } from '../src/generation/create-report-generator.ts';
import { GenerationError } from '../src/generation/report-generator.ts';
import type { GenerationOutput, ReportResult } from '../src/generation/report-generator.ts';
import { createResultValidator } from '../src/generation/result-schema.ts';
import type { Contract } from '../src/http/contract.ts';
import { ByteBudget } from '../src/images/byte-budget.ts';
import { composeImageBoundary } from '../src/images/compose-image-boundary.ts';
import { ImageFetchError } from '../src/images/image-fetch-error.ts';
import { REDACTED_PATHS } from '../src/shared/logger.ts';
import type { EvalCase } from './cases.ts';
import type { ImageHost } from './images.ts';
import { checkCase, outcomeBase } from './score.ts';
import type { CaseOutcome, Tokens } from './score.ts';

/** The name `--compare` takes for the offline generator (R25). */
export const OFFLINE = 'offline';

/**
 * The configuration of one run, read as `npm start` reads it (loadConfig over the environment).
 * `model`, when given, is a GEMINI_MODEL value, or `offline`. The local image host's address is
 * added to REMOTE_IMAGE_ALLOW_CIDRS: the run's images come from loopback, nothing else does.
 */
export function runConfig(env: NodeJS.ProcessEnv, model?: string): Config {
  const allow = [env.REMOTE_IMAGE_ALLOW_CIDRS ?? '', '127.0.0.1/32'].filter((s) => s.trim() !== '').join(',');
  const chosen: NodeJS.ProcessEnv =
    model === undefined ? {} : model === OFFLINE ? { REPORT_GENERATOR: 'offline' } : { REPORT_GENERATOR: 'gemini', GEMINI_MODEL: model };
  return loadConfig({ ...env, ...chosen, REMOTE_IMAGE_ALLOW_CIDRS: allow });
}

/** The name a run is shown under: `offline` or the GEMINI_MODEL value (its models, comma-separated). */
export function runName(config: Pick<Config, 'reportGenerator' | 'geminiModels'>): string {
  return config.reportGenerator === 'offline' ? OFFLINE : config.geminiModels.join(',');
}

/** The model that answered and its tokens (R42, R43), as the generation reports them. */
export function generationFacts(output: GenerationOutput): { model: string; tokens: Tokens } {
  return { model: output.model, tokens: { ...output.tokens } };
}

/** Logs of the composed parts go to stderr, so that `--json` keeps stdout to one object. */
export function evalLogger(config: Pick<Config, 'logLevel'>): Logger {
  const level = config.logLevel === 'info' || config.logLevel === 'debug' || config.logLevel === 'trace' ? 'warn' : config.logLevel;
  return pino({ level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' }, base: { service: 'evidence-report-service-eval' } }, pino.destination(2));
}

/** Runs `task` over `items` with at most `limit` at a time; results in input order. */
export async function mapBounded<T, R>(items: readonly T[], limit: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}

function describeFailure(error: unknown): string {
  if (error instanceof GenerationError) return `generation_${error.kind}: ${error.reason}`;
  if (error instanceof ImageFetchError) return `image_${error.kind}: ${error.reason}`;
  if (error instanceof DOMException && error.name === 'TimeoutError') return 'timeout';
  // Anything else is a defect of the run, not the model: its class only (no provider text).
  return `error: ${error instanceof Error ? error.name : typeof error}`;
}

export interface RunOptions {
  readonly contract: Contract;
  readonly host: ImageHost;
  readonly concurrency: number;
}

/** A configuration made ready to run: its generator (R42's model lookups done), image boundary and result check. */
export interface PreparedRun {
  readonly config: Config;
  readonly generator: Awaited<ReturnType<typeof createReportGenerator>>;
  readonly images: ReturnType<typeof composeImageBoundary>;
  readonly validator: ReturnType<typeof createResultValidator>;
}

/**
 * Builds a configuration's generator as the service does at start: a model that answers 404, or
 * an output bound above its limit, throws ConfigError here (R42, R43), before any case runs, so
 * that a bad B of --compare A,B costs none of A's paid generations.
 */
export async function prepareRun(config: Config, contract: Contract): Promise<PreparedRun> {
  const logger = evalLogger(config);
  const generator = await createReportGenerator(config, contract.document, logger);
  return {
    config,
    generator,
    images: composeImageBoundary(config, { budget: new ByteBudget(config.imageBytesInFlightMax), generator }),
    validator: createResultValidator(contract.document),
  };
}

export async function runCases(cases: readonly EvalCase[], prepared: PreparedRun, options: RunOptions): Promise<CaseOutcome[]> {
  const { config, generator, images, validator } = prepared;
  // A case never waits longer than a request would: both steps' bounds, and a margin.
  const caseBoundMs = config.imageFetchTimeoutMs + config.generatorTimeoutMs + 5_000;

  return mapBounded(cases, options.concurrency, async (c): Promise<CaseOutcome> => {
    const signal = AbortSignal.timeout(caseBoundMs);
    const started = performance.now();
    let imageMs = 0;
    let latencyMs: number | null = null;
    let generating: number | undefined;
    let answered = false;
    let facts: { model: string | null; tokens: Tokens | null } = { model: null, tokens: null };
    let result: ReportResult | null = null;
    let error: string | null = null;
    try {
      // The image step's time, refused or timed out ones included (they are not 0 ms).
      using held = await images.acquire(options.host.urlsOf(c), signal).finally(() => (imageMs = Math.round(performance.now() - started)));
      generating = performance.now();
      const output = await generator.generate(
        { context: c.request.context, language: c.request.language, text: c.request.evidence.text, images: held.normalized },
        signal,
      );
      latencyMs = Math.round(performance.now() - generating);
      answered = true;
      facts = generationFacts(output);
      result = validator.toReportResult(output.candidate);
    } catch (failure) {
      error = describeFailure(failure);
      if (failure instanceof GenerationError) {
        // An answer the generator itself found invalid (not JSON, or JSON the contract refuses)
        // is an answer: it counts against the schema-valid rate, unlike an outage or refused images.
        if (failure.kind === 'invalid') answered = true;
        // A refused or invalid answer was generated, and billed: its model and tokens count.
        if (failure.answer !== undefined) facts = { model: failure.answer.model, tokens: { ...failure.answer.tokens } };
      }
      // A generation that failed (a timeout at GENERATOR_TIMEOUT_MS included) took its time too:
      // percentiles of the answered ones alone would hide a model's slow failures.
      if (generating !== undefined && latencyMs === null) latencyMs = Math.round(performance.now() - generating);
    }
    return { ...outcomeBase(c), result, error, model: facts.model, answered, latencyMs, imageMs, tokens: facts.tokens, checks: checkCase(c, result) };
  });
}

export { ConfigError };

// The Telemetry adapter in use when metrics, traces or both are on (R40, R41). It knows no
// OpenTelemetry type: tracing comes in through the small Tracing interface below (implemented
// in otel-tracing.ts, loaded only when an endpoint is set), metrics through ServiceMetrics.
//
// Which request a step, a statement or a fetch belongs to is carried by an AsyncLocalStorage
// of this instance, entered once per request: the pipeline and the database layer stay free of
// any context parameter.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingHttpHeaders } from 'node:http';
import type { AdmissionRejection, RequestObservation, RequestOutcome, Telemetry } from './telemetry.ts';
import type { Attributes, SpanHandle, Tracing } from './tracing.ts';
import type { ServiceMetrics } from './metrics.ts';
import type { StepLabel } from './step-labels.ts';
import type { Mode } from '../accounts/mode.ts';
import { codeLabel, errorType, generationFailure, imageFailure, operationLabel, ROUTES, statusLabel } from './label-values.ts';
import { GenerationError, type GenerationObserver } from '../generation/report-generator.ts';

interface OpenStep {
  readonly label: StepLabel;
  readonly started: number;
  readonly span: SpanHandle | undefined;
}

interface RequestScope {
  /** R53: the authenticated key's mode; live until known. */
  mode: Mode;
}

interface Scope {
  readonly request: RequestScope;
  /** The span new spans nest under: the server span, or the step that runs. */
  readonly parent: SpanHandle | undefined;
}

/** The API's namespace: what is traced (a load balancer's /readyz every second is not). */
const API_PATHS = '/v1/';

const seconds = (started: number): number => (performance.now() - started) / 1000;

/** The outcome attributes of a client span, from closed lists. */
interface Outcome {
  readonly ok: Attributes;
  failed(error: unknown): Attributes;
}

const IMAGE_SPAN: Outcome = {
  ok: { 'ers.image.outcome': 'accepted' },
  failed: (error) => {
    const { outcome, reason } = imageFailure(error);
    return { 'ers.image.outcome': outcome, 'ers.image.reason': reason };
  },
};

const GENERATION_SPAN: Outcome = {
  ok: { 'ers.generation.outcome': 'ok' },
  failed: (error) => ({ 'ers.generation.outcome': generationFailure(error) }),
};

export class ObservedTelemetry implements Telemetry {
  readonly #metrics: ServiceMetrics | undefined;
  readonly #tracing: Tracing | undefined;
  readonly #generator: 'offline' | 'gemini';
  readonly #scope = new AsyncLocalStorage<Scope>();

  constructor(parts: { metrics?: ServiceMetrics; tracing?: Tracing; generator: 'offline' | 'gemini' }) {
    this.#metrics = parts.metrics;
    this.#tracing = parts.tracing;
    this.#generator = parts.generator;
  }

  request(method: string, path: string, headers: IncomingHttpHeaders): RequestObservation {
    const span = path.startsWith(API_PATHS) ? this.#tracing?.server(method, headers) : undefined;
    const scope: Scope = { request: { mode: 'live' }, parent: span };
    return {
      traceId: span?.traceId,
      run: (fn) => this.#scope.run(scope, fn),
      end: (outcome: RequestOutcome) => {
        const operation = operationLabel(outcome.operation);
        const status = statusLabel(outcome.status);
        const code = codeLabel(outcome.code);
        const { mode } = scope.request;
        this.#metrics?.request(operation, status, code, mode, outcome.seconds);
        const route = operation === 'other' ? undefined : ROUTES[operation];
        span?.end({
          name: route === undefined ? method : `${method} ${route}`,
          attributes: {
            'http.response.status_code': outcome.status,
            'ers.operation': operation,
            'ers.mode': mode,
            ...(route === undefined ? {} : { 'http.route': route }),
            ...(code === 'none' ? {} : { 'ers.error_code': code }),
          },
          // A server span fails on 5xx only; a 4xx is the client's (OpenTelemetry HTTP conventions).
          errorType: outcome.status >= 500 ? code : undefined,
        });
      },
    };
  }

  async step<T>(label: StepLabel, fn: () => Promise<T> | T): Promise<T> {
    const scope = this.#scope.getStore();
    const step = this.#beginStep(label, scope);
    try {
      const result = await this.#within(scope, step.span, async () => fn());
      this.#endStep(step, undefined);
      return result;
    } catch (error) {
      this.#endStep(step, errorType(error));
      throw error;
    }
  }

  mode(mode: Mode): void {
    const scope = this.#scope.getStore();
    if (scope) scope.request.mode = mode;
  }

  statement<T>(name: string, fn: () => Promise<T>): Promise<T> {
    return this.#client(`ers.db.${name}`, { 'db.system.name': 'postgresql', 'db.operation.name': name }, fn);
  }

  async imageFetch<T>(count: number, fn: () => Promise<T>): Promise<T> {
    try {
      const result = await this.#client('ers.image_fetch', { 'ers.image.count': count }, fn, IMAGE_SPAN);
      this.#liveMetrics()?.imageFetches('accepted', 'none', count);
      return result;
    } catch (error) {
      const { outcome, reason } = imageFailure(error);
      // A client gone mid-fetch says nothing of the image hosts (the request is counted 499).
      if (reason !== 'aborted') this.#liveMetrics()?.imageFetches(outcome, reason, 1);
      throw error;
    }
  }

  async generation<T>(fn: () => Promise<T>): Promise<T> {
    const started = performance.now();
    // R53: a test-mode request generates offline whatever the configured generator is.
    const generator = this.#scope.getStore()?.request.mode === 'test' ? 'offline' : this.#generator;
    try {
      const result = await this.#client('ers.generate', { 'ers.generator': generator }, fn, GENERATION_SPAN);
      this.#liveMetrics()?.generation('ok', seconds(started), generator);
      return result;
    } catch (error) {
      // A client gone mid-generation says nothing of the generator (the request is counted 499).
      const callerLeft = error instanceof GenerationError && error.reason === 'aborted';
      if (!callerLeft) this.#liveMetrics()?.generation(generationFailure(error), seconds(started), generator);
      throw error;
    }
  }

  admissionRejected(reason: AdmissionRejection): void {
    this.#liveMetrics()?.admissionRejected(reason);
  }

  /** The generator's own observations (attempts, tokens), for live requests only (R53). */
  liveOnly(observer: GenerationObserver): GenerationObserver {
    const live: GenerationObserver = {
      attempt: (model, outcome) => {
        if (this.#live()) observer.attempt(model, outcome);
      },
      tokens: (model, tokens) => {
        if (this.#live()) observer.tokens(model, tokens);
      },
    };
    return Object.freeze(live);
  }

  /**
   * R53: a test key's requests are counted apart (ers_test_mode_*) and move no live figure:
   * durations, generations, image fetches, attempts, tokens, in-flight refusals. Outside a
   * request (the edge's shedding, background work) everything is live.
   */
  #live(): boolean {
    return this.#scope.getStore()?.request.mode !== 'test';
  }

  /** The metrics, when the current request's figures are live ones (#live). */
  #liveMetrics(): ServiceMetrics | undefined {
    return this.#live() ? this.#metrics : undefined;
  }

  /** Ends the tracing (exporting what is queued). */
  close(): Promise<void> {
    return this.#tracing?.close() ?? Promise.resolve();
  }

  #beginStep(label: StepLabel, scope: Scope | undefined): OpenStep {
    return { label, started: performance.now(), span: scope?.parent?.child(`ers.step.${label}`, 'internal') };
  }

  #endStep(step: OpenStep, failed: string | undefined): void {
    this.#liveMetrics()?.step(step.label, seconds(step.started));
    // Steps 9-10 are one transaction with the report and its usage unit (R15): their success is
    // a report created.
    if (step.label === '9_10_persist' && failed === undefined) this.#metrics?.reportCreated(this.#scope.getStore()?.request.mode ?? 'live');
    step.span?.end({ errorType: failed });
  }

  /** Runs fn with `span` as the parent of what it opens (when tracing). */
  #within<T>(scope: Scope | undefined, span: SpanHandle | undefined, fn: () => Promise<T>): Promise<T> {
    return scope && span ? this.#scope.run({ request: scope.request, parent: span }, fn) : fn();
  }

  /** A client span around fn, when tracing and inside a request; else just fn. */
  async #client<T>(name: string, attributes: Attributes, fn: () => Promise<T>, outcome?: Outcome): Promise<T> {
    const span = this.#scope.getStore()?.parent?.child(name, 'client', attributes);
    if (!span) return fn();
    try {
      const result = await fn();
      span.end({ attributes: outcome?.ok });
      return result;
    } catch (error) {
      span.end({ attributes: outcome?.failed(error), errorType: errorType(error) });
      throw error;
    }
  }
}

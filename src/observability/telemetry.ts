// The Telemetry port (R40, R41): what the request path tells the metrics and the traces, in
// one small interface. The no-op adapter below is what runs when neither METRICS_PORT nor
// OTEL_EXPORTER_OTLP_ENDPOINT is set: every hook is a plain call of the wrapped function, and
// neither prom-client nor the OpenTelemetry SDK is loaded (create-observability.ts).
//
// Hooks take the work as a function (`step(label, () => stage.run(state))`) so that each
// integration point in the request path is one call, easy to see and to move.
import type { IncomingHttpHeaders } from 'node:http';
import type { StepLabel } from './step-labels.ts';
import type { Mode } from '../accounts/mode.ts';

/** How one request ended, for the request counter, its histogram and the server span. */
export interface RequestOutcome {
  /** The contract's operationId, when the request was routed to one. */
  readonly operation: string | undefined;
  readonly status: number;
  /** The catalogue code of an error answer. */
  readonly code: string | undefined;
  readonly seconds: number;
}

/** One request, from the first middleware to its answer. */
export interface RequestObservation {
  /** The W3C trace id of the request's trace; undefined when tracing is off. */
  readonly traceId: string | undefined;
  /** Runs the rest of the request inside its trace (steps and client spans nest under it). */
  run<T>(fn: () => Promise<T>): Promise<T>;
  end(outcome: RequestOutcome): void;
}

export interface Telemetry {
  /**
   * Starts observing a request. Requests to the API (/v1/...) are traced, continuing an
   * incoming `traceparent` (R41); health checks and the contract files are only counted.
   * The path decides that and is never recorded.
   */
  request(method: string, path: string, headers: IncomingHttpHeaders): RequestObservation;
  /**
   * One pipeline step: its duration (ers_pipeline_step_duration_seconds) and span
   * `ers.step.<label>`. (Its shape is a step runner's: `(label, run) => telemetry.step(label, run)`.)
   */
  step<T>(label: StepLabel, fn: () => Promise<T> | T): Promise<T>;
  /**
   * The request's mode, once its key is known (R53): a test key's request is counted in the
   * ers_test_mode_* series and moves no live figure; its server span carries `ers.mode`. A
   * request refused before that counts as `live`.
   */
  mode(mode: Mode): void;
  /** One database statement, by its name only (never its text or parameters). */
  statement<T>(name: string, fn: () => Promise<T>): Promise<T>;
  /** The images of one request fetched through the boundary (R22, R23). */
  imageFetch<T>(count: number, fn: () => Promise<T>): Promise<T>;
  /** One report generation, result check included (R24). */
  generation<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * A request refused by admission control (R52): `customer_in_flight` at step 3 (its 429 is
   * also counted with the request as usual), or `saturated` before the application ran (its 503
   * is counted here only: the request hooks never saw it, and the fail-closed alerts, which read
   * the 503 codes of ers_http_requests_total, must not take a shed request for a database down).
   */
  admissionRejected(reason: AdmissionRejection): void;
}

/** The reasons of ers_admission_rejections_total (operator-interface.md). */
export const ADMISSION_REJECTIONS = ['customer_in_flight', 'saturated'] as const;
export type AdmissionRejection = (typeof ADMISSION_REJECTIONS)[number];

const idle: RequestObservation = Object.freeze({
  traceId: undefined,
  run: <T>(fn: () => Promise<T>) => fn(),
  end: () => {},
});

/** Nothing observed, nothing loaded: each hook just runs the work. */
export const noopTelemetry: Telemetry = Object.freeze({
  request: () => idle,
  step: async <T>(_label: StepLabel, fn: () => Promise<T> | T) => fn(),
  mode: () => {},
  statement: <T>(_name: string, fn: () => Promise<T>) => fn(),
  imageFetch: <T>(_count: number, fn: () => Promise<T>) => fn(),
  generation: <T>(fn: () => Promise<T>) => fn(),
  admissionRejected: () => {},
});

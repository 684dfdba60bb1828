// Metrics and traces as the operator turned them on (R40, R41), built once by the composition
// root. With neither METRICS_PORT nor OTEL_EXPORTER_OTLP_ENDPOINT set, the no-op Telemetry is
// returned and neither prom-client nor the OpenTelemetry SDK is imported: they are loaded by
// dynamic imports below, only for what is on.
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { AdmissionState, PoolCounts } from './metrics.ts';
import type { MetricsListener } from './metrics-listener.ts';
import { noopTelemetry, type Telemetry } from './telemetry.ts';
import { NO_OBSERVER, type GenerationObserver } from '../generation/report-generator.ts';

interface ObservabilitySources {
  /** The ORM's pg pool (totalCount, idleCount, waitingCount and options.max). */
  readonly pool: PoolCounts & { readonly options: { readonly max?: number } };
  /** The process-wide image byte budget. */
  readonly imageBudget: { readonly used: number };
  /** R52: the admission controller's state now (undefined while there is none). */
  readonly admission?: () => AdmissionState | undefined;
}

interface Observability {
  readonly telemetry: Telemetry;
  /** R42, R43: generator attempts and tokens, counted when metrics are on. */
  readonly generationObserver: GenerationObserver;
  /** Starts the metrics listener when METRICS_PORT is set; resolves with its URL. */
  listen(): Promise<string | undefined>;
  /** Stops the metrics listener and exports the spans still queued. */
  close(): Promise<void>;
}

type ObservabilityConfig = Pick<Config, 'metricsPort' | 'metricsHost' | 'otelExporterOtlpEndpoint' | 'reportGenerator' | 'geminiModels'> &
  Partial<Pick<Config, 'egressProxy'>>;

const OFF: Observability = Object.freeze({
  telemetry: noopTelemetry,
  generationObserver: NO_OBSERVER,
  listen: () => Promise.resolve(undefined),
  close: () => Promise.resolve(),
});

export async function createObservability(
  config: ObservabilityConfig,
  logger: Logger,
  sources: ObservabilitySources,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Observability> {
  // OTEL_SDK_DISABLED=true is the standard off switch; it wins over the endpoint.
  const endpoint = env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true' ? undefined : config.otelExporterOtlpEndpoint;
  if (config.metricsPort === undefined && endpoint === undefined) return OFF;

  const metrics =
    config.metricsPort === undefined
      ? undefined
      : new (await import('./metrics.ts')).ServiceMetrics({
          pool: sources.pool,
          poolMax: sources.pool.options.max,
          imageBudget: sources.imageBudget,
          admission: sources.admission,
          generator: config.reportGenerator,
          models: config.reportGenerator === 'gemini' ? config.geminiModels : ['offline'],
        });
  const tracing =
    endpoint === undefined
      ? undefined
      : await (
          await import('./otel-tracing.ts')
        ).startTracing({ endpoint, env, logger, egressProxy: config.egressProxy });
  const { ObservedTelemetry } = await import('./observed-telemetry.ts');
  const telemetry = new ObservedTelemetry({ metrics, tracing, generator: config.reportGenerator });
  let listener: MetricsListener | undefined;
  return {
    telemetry,
    generationObserver: metrics === undefined ? NO_OBSERVER : telemetry.liveOnly(metrics.generatorObserver),
    async listen() {
      if (metrics === undefined || config.metricsPort === undefined) return undefined;
      const { startMetricsListener } = await import('./metrics-listener.ts');
      listener = await startMetricsListener(metrics, config.metricsHost, config.metricsPort);
      return listener.url;
    },
    async close() {
      await listener?.close();
      await telemetry.close();
    },
  };
}

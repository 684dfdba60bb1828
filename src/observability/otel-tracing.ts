// The OpenTelemetry adapter of the tracing hooks (R41), loaded by a dynamic import only when
// OTEL_EXPORTER_OTLP_ENDPOINT is set: without it, not one module of the SDK is in the process.
//
// Manual instrumentation through @opentelemetry/api, nothing patched: the spans are the ones
// our code opens (server, steps, statements, image fetch, generation), with attributes from
// closed lists only. Nothing is registered globally either (no global tracer provider, context
// manager or propagator): parents are passed explicitly, so two services in one process (the
// tests) never mix their traces, and no library can add spans of its own.
import type { IncomingHttpHeaders } from 'node:http';
import type { Logger } from 'pino';
import { defaultTextMapGetter, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Span, type Tracer } from '@opentelemetry/api';
import { setGlobalErrorHandler, W3CTraceContextPropagator } from '@opentelemetry/core';
import { defaultResource, detectResources, resourceAttributesEnvDetector, resourceFromAttributes, serviceNameEnvDetector } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type Sampler,
  type SpanExporter,
} from '@opentelemetry/sdk-trace';
import type { Attributes, SpanEnd, SpanHandle, Tracing } from './tracing.ts';
import { otlpTlsFiles, readOtelSettings, type OtelSettings } from './otel-environment.ts';
import type { EgressProxy } from '../config.ts';
import { proxyConfigured, proxyEnv } from '../shared/egress-proxy.ts';

const SERVICE_NAME = 'evidence-report-service';
/**
 * How long SIGTERM waits for the last spans to be exported: within the time the shutdown gives
 * its dependencies to close (server.ts, CLOSE_DEPENDENCIES_MS), so that R35's bound on the exit
 * holds and a collector that does not take them in time is logged, not cut off unsaid.
 */
const SHUTDOWN_EXPORT_MS = 400;

class OtelSpan implements SpanHandle {
  readonly #tracer: Tracer;
  readonly #span: Span;
  readonly #context: Context;

  constructor(tracer: Tracer, span: Span, context: Context) {
    this.#tracer = tracer;
    this.#span = span;
    this.#context = context;
  }

  get traceId(): string {
    return this.#span.spanContext().traceId;
  }

  child(name: string, kind: 'internal' | 'client', attributes?: Attributes): SpanHandle {
    const span = this.#tracer.startSpan(name, { kind: kind === 'client' ? SpanKind.CLIENT : SpanKind.INTERNAL, attributes }, this.#context);
    return new OtelSpan(this.#tracer, span, trace.setSpan(this.#context, span));
  }

  end(result: SpanEnd = {}): void {
    if (result.name !== undefined) this.#span.updateName(result.name);
    if (result.attributes !== undefined) this.#span.setAttributes(result.attributes);
    if (result.errorType !== undefined) {
      this.#span.setAttribute('error.type', result.errorType);
      // The status description would be a message: only the closed-list error.type is kept.
      this.#span.setStatus({ code: SpanStatusCode.ERROR });
    }
    this.#span.end();
  }
}

function sampler(settings: OtelSettings): Sampler {
  const ratio = new TraceIdRatioBasedSampler(settings.samplerRatio);
  switch (settings.sampler) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return ratio;
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: ratio });
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

async function exporter(settings: OtelSettings, egressProxy: EgressProxy | undefined): Promise<SpanExporter> {
  // Only the exporter of the chosen protocol is loaded.
  const { OTLPTraceExporter } =
    settings.protocol === 'http/json'
      ? await import('@opentelemetry/exporter-trace-otlp-http')
      : await import('@opentelemetry/exporter-trace-otlp-proto');
  // R45: the exporter makes agents of its own; Node 24's `proxyEnv` agent option sends them
  // through the egress proxy (NO_PROXY honoured) when one is configured.
  // Agent options given here replace the ones the exporter builds from the environment, which
  // carry the OTLP certificate variables: they are read again, by the exporter's own rules.
  const proxied = egressProxy !== undefined && proxyConfigured(egressProxy);
  return new OTLPTraceExporter({
    url: settings.tracesUrl,
    ...(proxied ? { httpAgentOptions: { keepAlive: true, proxyEnv: proxyEnv(egressProxy), ...otlpTlsFiles(process.env) } } : {}),
  });
}

interface TracingOptions {
  readonly endpoint: string;
  readonly env: NodeJS.ProcessEnv;
  readonly logger: Pick<Logger, 'info' | 'warn'>;
  /** R45: HTTPS_PROXY / HTTP_PROXY / NO_PROXY for the exports. */
  readonly egressProxy?: EgressProxy | undefined;
}

export async function startTracing(options: TracingOptions): Promise<Tracing> {
  const settings = readOtelSettings(options.endpoint, options.env);
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': SERVICE_NAME }))
    .merge(detectResources({ detectors: [serviceNameEnvDetector, resourceAttributesEnvDetector] }));
  const provider = new TracerProvider({
    resource,
    sampler: sampler(settings),
    spanProcessors: [new BatchSpanProcessor({ exporter: await exporter(settings, options.egressProxy), ...settings.batch })],
  });
  // A collector that cannot be reached is a failed dependency like any other: one line at most
  // a minute, a fixed reason, never the endpoint or the exporter's error text.
  let lastFailure = 0;
  const exportFailed = (reason: 'export_failed' | 'timeout', always = false) => {
    if (!always && Date.now() - lastFailure < 60_000) return;
    lastFailure = Date.now();
    options.logger.warn({ dependency: 'trace_collector', reason }, 'dependency failure');
  };
  setGlobalErrorHandler(() => exportFailed('export_failed'));
  options.logger.info({ protocol: settings.protocol, sampler: settings.sampler }, 'tracing on: one trace per API request, exported over OTLP/HTTP');
  const tracer = provider.getTracer(SERVICE_NAME);
  const propagator = new W3CTraceContextPropagator();
  return {
    server(method: string, headers: IncomingHttpHeaders): SpanHandle {
      const parent = propagator.extract(ROOT_CONTEXT, headers, defaultTextMapGetter);
      const span = tracer.startSpan(method, { kind: SpanKind.SERVER, attributes: { 'http.request.method': method } }, parent);
      return new OtelSpan(tracer, span, trace.setSpan(parent, span));
    },
    // Shutting the provider down exports what is still queued (SIGTERM loses no trace). A
    // collector that cannot take them is logged, and holds the shutdown for a bounded time
    // only (SHUTDOWN_EXPORT_MS): the exporter's own retries would take several seconds more.
    async close() {
      let timer: NodeJS.Timeout | undefined;
      const bound = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), SHUTDOWN_EXPORT_MS)));
      const shutdown = provider.shutdown().then(
        () => 'done' as const,
        () => 'export_failed' as const,
      );
      const outcome = await Promise.race([shutdown, bound]);
      clearTimeout(timer);
      // The last word on the collector, whatever was logged within the minute: these spans are lost.
      if (outcome !== 'done') exportFailed(outcome, true);
    },
  };
}

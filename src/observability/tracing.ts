// The tracing side of the Telemetry adapter, as observed-telemetry.ts needs it: spans as
// handles with a parent, a name, closed-list attributes and an end. otel-tracing.ts implements
// it with the OpenTelemetry SDK; this file imports nothing of it, so that the adapter can be
// loaded without the SDK (metrics only).
import type { IncomingHttpHeaders } from 'node:http';

export type Attributes = Record<string, string | number | boolean>;

export interface SpanEnd {
  readonly name?: string;
  readonly attributes?: Attributes;
  /** Marks the span failed, with this closed-list `error.type`. */
  readonly errorType?: string;
}

export interface SpanHandle {
  readonly traceId: string;
  child(name: string, kind: 'internal' | 'client', attributes?: Attributes): SpanHandle;
  end(result?: SpanEnd): void;
}

export interface Tracing {
  /** The server span of a request, continuing its W3C `traceparent` when it has one. */
  server(method: string, headers: IncomingHttpHeaders): SpanHandle;
  close(): Promise<void>;
}

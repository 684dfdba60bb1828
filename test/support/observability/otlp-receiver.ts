// A local OTLP/HTTP trace receiver (node:http, loopback, port 0): what a collector is to the
// service. POST /v1/traces with OTLP/JSON (OTEL_EXPORTER_OTLP_PROTOCOL=http/json) is decoded
// into spans; a protobuf body (the default protocol) is kept as bytes. It answers as the OTLP
// specification says: 200 with an empty ExportTraceServiceResponse.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

export type AttributeValue = string | number | boolean | null;

export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | undefined;
  readonly name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client. */
  readonly kind: number;
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  readonly status: number;
  readonly statusMessage: string | undefined;
  readonly attributes: Readonly<Record<string, AttributeValue>>;
  readonly resource: Readonly<Record<string, AttributeValue>>;
  readonly startNs: bigint;
}

export interface ReceivedExport {
  readonly path: string;
  readonly contentType: string;
  readonly body: Buffer;
}

interface OtlpKeyValue {
  key: string;
  value?: { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean };
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  startTimeUnixNano?: string | number;
  attributes?: OtlpKeyValue[];
  status?: { code?: number; message?: string };
}
interface OtlpExport {
  resourceSpans?: { resource?: { attributes?: OtlpKeyValue[] }; scopeSpans?: { spans?: OtlpSpan[] }[] }[];
}

function attributes(list: OtlpKeyValue[] | undefined): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const { key, value } of list ?? []) {
    if (value?.stringValue !== undefined) out[key] = value.stringValue;
    else if (value?.intValue !== undefined) out[key] = Number(value.intValue);
    else if (value?.doubleValue !== undefined) out[key] = value.doubleValue;
    else if (value?.boolValue !== undefined) out[key] = value.boolValue;
    else out[key] = null;
  }
  return out;
}

export interface OtlpReceiver {
  /** Give this to OTEL_EXPORTER_OTLP_ENDPOINT (the exporter appends /v1/traces). */
  readonly endpoint: string;
  readonly spans: ReceivedSpan[];
  readonly exports: ReceivedExport[];
  /** The spans of one trace, once `count` of them arrived (bounded wait). */
  trace(traceId: string, count?: number, timeoutMs?: number): Promise<ReceivedSpan[]>;
  /** Waits until `predicate` holds for the spans received (bounded). */
  waitFor(predicate: (spans: readonly ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const exports: ReceivedExport[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const contentType = String(req.headers['content-type'] ?? '');
      exports.push({ path: req.url ?? '/', contentType, body });
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      if (contentType.startsWith('application/json')) {
        const decoded = JSON.parse(body.toString('utf8')) as OtlpExport;
        for (const resourceSpans of decoded.resourceSpans ?? []) {
          const resource = attributes(resourceSpans.resource?.attributes);
          for (const scope of resourceSpans.scopeSpans ?? []) {
            for (const span of scope.spans ?? []) {
              spans.push({
                traceId: span.traceId,
                spanId: span.spanId,
                parentSpanId: span.parentSpanId || undefined,
                name: span.name,
                kind: span.kind ?? 0,
                status: span.status?.code ?? 0,
                statusMessage: span.status?.message || undefined,
                attributes: attributes(span.attributes),
                resource,
                startNs: BigInt(span.startTimeUnixNano ?? 0),
              });
            }
          }
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const waitFor = async (predicate: (received: readonly ReceivedSpan[]) => boolean, timeoutMs = 10_000): Promise<void> => {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(spans)) {
      if (Date.now() > deadline) throw new Error(`the OTLP receiver did not get the expected spans in ${timeoutMs} ms (${spans.length} received)`);
      await sleep(25);
    }
  };
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    exports,
    waitFor,
    async trace(traceId, count = 1, timeoutMs = 10_000) {
      await waitFor((received) => received.filter((s) => s.traceId === traceId).length >= count, timeoutMs);
      return spans.filter((s) => s.traceId === traceId).sort((a, b) => (a.startNs < b.startNs ? -1 : a.startNs > b.startNs ? 1 : 0));
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

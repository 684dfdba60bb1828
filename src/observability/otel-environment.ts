// The standard OTEL_* variables that the OpenTelemetry JS SDK 3 no longer reads by itself
// (its exporters still read OTEL_EXPORTER_OTLP_HEADERS, _TIMEOUT, _COMPRESSION and the
// certificate files; its resource detectors OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES).
// R41: the standard variables are honoured, OTEL_EXPORTER_OTLP_PROTOCOL=http/json included.
// A value the SDK specification does not allow stops the start with a line naming the variable.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { urlProblem } from '../config.ts';

type OtlpProtocol = 'http/protobuf' | 'http/json';
type SamplerName =
  | 'always_on'
  | 'always_off'
  | 'traceidratio'
  | 'parentbased_always_on'
  | 'parentbased_always_off'
  | 'parentbased_traceidratio';

export interface OtelSettings {
  readonly protocol: OtlpProtocol;
  /** The traces URL: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given, else the endpoint + v1/traces. */
  readonly tracesUrl: string;
  readonly sampler: SamplerName;
  readonly samplerRatio: number;
  readonly batch: {
    readonly scheduledDelayMillis: number;
    readonly exportTimeoutMillis: number;
    readonly maxQueueSize: number;
    readonly maxExportBatchSize: number;
  };
}

const SAMPLERS: readonly SamplerName[] = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
];

function fail(name: string, why: string): never {
  throw new Error(`${name}: ${why}`);
}

function count(env: NodeJS.ProcessEnv, name: string, def: number, min: number): number {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return def;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) fail(name, `must be an integer of at least ${min}`);
  return value;
}

/** The spec's rule for the generic endpoint: the signal path is appended to it. */
function withSignalPath(endpoint: string): string {
  return `${endpoint.endsWith('/') ? endpoint : `${endpoint}/`}v1/traces`;
}

export function readOtelSettings(endpoint: string, env: NodeJS.ProcessEnv): OtelSettings {
  const protocolName = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const protocol = (env[protocolName]?.trim() || 'http/protobuf') as OtlpProtocol;
  if (protocol !== 'http/protobuf' && protocol !== 'http/json') {
    fail(protocolName, 'must be http/protobuf or http/json (OTLP/HTTP; grpc is not supported)');
  }
  const sampler = (env.OTEL_TRACES_SAMPLER?.trim() || 'parentbased_always_on') as SamplerName;
  if (!SAMPLERS.includes(sampler)) fail('OTEL_TRACES_SAMPLER', `must be one of ${SAMPLERS.join(', ')}`);
  const ratioRaw = env.OTEL_TRACES_SAMPLER_ARG?.trim();
  const samplerRatio = ratioRaw === undefined || ratioRaw === '' ? 1 : Number(ratioRaw);
  if (!(samplerRatio >= 0 && samplerRatio <= 1)) fail('OTEL_TRACES_SAMPLER_ARG', 'must be a number from 0 to 1');
  const specific = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  // Checked as the service's own URLs are (the exporter's error quotes the URL, credentials and all).
  const problem = specific ? urlProblem(specific, ['http:', 'https:']) : undefined;
  if (problem !== undefined) fail('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', `must be ${problem}`);
  const batch = {
    scheduledDelayMillis: count(env, 'OTEL_BSP_SCHEDULE_DELAY', 5000, 0),
    exportTimeoutMillis: count(env, 'OTEL_BSP_EXPORT_TIMEOUT', 30_000, 1),
    maxQueueSize: count(env, 'OTEL_BSP_MAX_QUEUE_SIZE', 2048, 1),
    maxExportBatchSize: count(env, 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE', 512, 1),
  };
  if (batch.maxExportBatchSize > batch.maxQueueSize) fail('OTEL_BSP_MAX_EXPORT_BATCH_SIZE', 'must not exceed OTEL_BSP_MAX_QUEUE_SIZE');
  return { protocol, tracesUrl: specific || withSignalPath(endpoint), sampler, samplerRatio, batch };
}

/**
 * The exporter's TLS files as it reads them itself (OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE,
 * _CLIENT_CERTIFICATE, _CLIENT_KEY, else the generic ones; a path relative to the working
 * directory; a file that cannot be read is left out, as the exporter leaves it out). Needed
 * where the service gives the exporter agent options of its own (the egress proxy, R45), which
 * replace the exporter's.
 */
export function otlpTlsFiles(env: NodeJS.ProcessEnv): { ca?: Buffer; cert?: Buffer; key?: Buffer } {
  const read = (part: string): Buffer | undefined => {
    const path = env[`OTEL_EXPORTER_OTLP_TRACES_${part}`]?.trim() || env[`OTEL_EXPORTER_OTLP_${part}`]?.trim();
    if (!path) return undefined;
    try {
      return readFileSync(resolve(process.cwd(), path));
    } catch {
      return undefined;
    }
  };
  const files = { ca: read('CERTIFICATE'), cert: read('CLIENT_CERTIFICATE'), key: read('CLIENT_KEY') };
  return Object.fromEntries(Object.entries(files).filter(([, value]) => value !== undefined));
}

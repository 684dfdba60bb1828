// Configuration is read once, validated against a JSON schema and frozen
// (operator-interface.md "Environment"). A bad value stops the start with one
// line naming the variable.
import { Ajv } from 'ajv';
import { isIP } from 'node:net';

export type RateLimitStore = 'postgres' | 'memory' | 'redis';
export type GeneratorKind = 'offline' | 'gemini';
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly databaseUrl: string | undefined;
  readonly dataDir: string;
  readonly reportGenerator: GeneratorKind;
  readonly geminiApiKey: string | undefined;
  readonly geminiModel: string;
  readonly geminiBaseUrl: string | undefined;
  readonly generatorTimeoutMs: number;
  /** Bench-only: the offline generator waits this long before answering (issue 6). */
  readonly offlineGeneratorDelayMs: number;
  readonly rateLimitRequests: number;
  readonly rateLimitWindowSeconds: number;
  readonly rateLimitStore: RateLimitStore;
  readonly redisUrl: string | undefined;
  readonly idempotencyRetentionHours: number;
  readonly imageMaxBytes: number;
  readonly imageFetchTimeoutMs: number;
  readonly imageMaxRedirects: number;
  readonly imageMaxCount: number;
  readonly imageUrlMaxChars: number;
  readonly imageFetchConcurrency: number;
  readonly imageBytesInFlightMax: number;
  readonly evidenceTextMaxChars: number;
  readonly languageMaxChars: number;
  readonly remoteImageAllowCidrs: readonly string[];
  readonly bodyMaxBytes: number;
  readonly shutdownTimeoutMs: number;
  readonly dbPoolSize: number;
  /** R33: taking or opening a database connection, at most this long. */
  readonly dbConnectTimeoutMs: number;
  /** R33: one statement (and idle in a transaction) at most this long. */
  readonly dbStatementTimeoutMs: number;
  /** R35: after SIGTERM, keep serving this long with /readyz at 503. */
  readonly shutdownDrainMs: number;
  /** R37: pending connections the listener queues (capped by the kernel's somaxconn). */
  readonly listenBacklog: number;
  /** R36: how often expired idempotency records, abandoned claims and rate-limit counters are swept. */
  readonly idempotencySweepIntervalSeconds: number;
  /** R38: normalized images fit this many pixels on their long side. */
  readonly imageMaxDimension: number;
  /** R38: decoded images above this many pixels are refused (decompression bomb). */
  readonly imageMaxPixels: number;
  /** R40: the Prometheus listener; undefined means no listener. */
  readonly metricsPort: number | undefined;
  readonly metricsHost: string;
  /** R41: OTLP/HTTP endpoint; undefined means nothing is exported (and nothing is loaded). */
  readonly otelExporterOtlpEndpoint: string | undefined;
  readonly logLevel: LogLevel;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export const DEFAULT_GEMINI_MODEL = 'gemini-2.5-flash';

type Spec =
  | { kind: 'int'; min: number; max: number; def?: number }
  | { kind: 'string'; def?: string; pattern?: string }
  | { kind: 'enum'; values: readonly string[]; def?: string }
  | { kind: 'url'; protocols: readonly string[] };

// One entry per variable: the schema is derived from this table, so a variable
// cannot be documented here and forgotten in the validation.
const VARS = {
  PORT: { kind: 'int', min: 0, max: 65535, def: 8080 },
  HOST: { kind: 'string', def: '127.0.0.1', pattern: '^\\S+$' },
  DATABASE_URL: { kind: 'url', protocols: ['postgres:', 'postgresql:'] },
  DATA_DIR: { kind: 'string', def: './.data', pattern: '\\S' },
  REPORT_GENERATOR: { kind: 'enum', values: ['offline', 'gemini'] },
  GEMINI_API_KEY: { kind: 'string', pattern: '^\\S+$' },
  GEMINI_MODEL: { kind: 'string', def: DEFAULT_GEMINI_MODEL, pattern: '^[A-Za-z0-9._/-]+$' },
  GEMINI_BASE_URL: { kind: 'url', protocols: ['http:', 'https:'] },
  GENERATOR_TIMEOUT_MS: { kind: 'int', min: 100, max: 600_000, def: 30_000 },
  OFFLINE_GENERATOR_DELAY_MS: { kind: 'int', min: 0, max: 600_000, def: 0 },
  RATE_LIMIT_REQUESTS: { kind: 'int', min: 1, max: 1_000_000_000, def: 60 },
  RATE_LIMIT_WINDOW_SECONDS: { kind: 'int', min: 1, max: 86_400, def: 60 },
  RATE_LIMIT_STORE: { kind: 'enum', values: ['postgres', 'memory', 'redis'], def: 'postgres' },
  REDIS_URL: { kind: 'url', protocols: ['redis:', 'rediss:'] },
  IDEMPOTENCY_RETENTION_HOURS: { kind: 'int', min: 1, max: 24 * 365, def: 24 },
  IMAGE_MAX_BYTES: { kind: 'int', min: 1, max: 100 * 1024 * 1024, def: 10 * 1024 * 1024 },
  IMAGE_FETCH_TIMEOUT_MS: { kind: 'int', min: 100, max: 120_000, def: 5_000 },
  IMAGE_MAX_REDIRECTS: { kind: 'int', min: 0, max: 10, def: 3 },
  IMAGE_MAX_COUNT: { kind: 'int', min: 1, max: 64, def: 8 },
  IMAGE_URL_MAX_CHARS: { kind: 'int', min: 16, max: 65_536, def: 2_048 },
  IMAGE_FETCH_CONCURRENCY: { kind: 'int', min: 1, max: 16, def: 4 },
  // Image bytes held at once, process-wide: with the service's own ~200 MiB and the garbage of
  // socket reads, 192 MiB keeps a busy process under 600 MiB (issue 6 image load).
  IMAGE_BYTES_IN_FLIGHT_MAX: { kind: 'int', min: 1, max: 4 * 1024 * 1024 * 1024, def: 192 * 1024 * 1024 },
  EVIDENCE_TEXT_MAX_CHARS: { kind: 'int', min: 1, max: 1_000_000, def: 20_000 },
  LANGUAGE_MAX_CHARS: { kind: 'int', min: 1, max: 10_000, def: 100 },
  REMOTE_IMAGE_ALLOW_CIDRS: { kind: 'string', def: '' },
  BODY_MAX_BYTES: { kind: 'int', min: 1024, max: 64 * 1024 * 1024, def: 1024 * 1024 },
  SHUTDOWN_TIMEOUT_MS: { kind: 'int', min: 0, max: 600_000, def: 10_000 },
  DB_POOL_SIZE: { kind: 'int', min: 1, max: 200, def: 10 },
  DB_CONNECT_TIMEOUT_MS: { kind: 'int', min: 100, max: 120_000, def: 2_000 },
  DB_STATEMENT_TIMEOUT_MS: { kind: 'int', min: 100, max: 600_000, def: 5_000 },
  SHUTDOWN_DRAIN_MS: { kind: 'int', min: 0, max: 600_000, def: 0 },
  LISTEN_BACKLOG: { kind: 'int', min: 1, max: 1_048_576, def: 4096 },
  IDEMPOTENCY_SWEEP_INTERVAL_SECONDS: { kind: 'int', min: 1, max: 86_400, def: 300 },
  IMAGE_MAX_DIMENSION: { kind: 'int', min: 16, max: 16_384, def: 2048 },
  IMAGE_MAX_PIXELS: { kind: 'int', min: 256, max: 1_000_000_000, def: 40_000_000 },
  METRICS_PORT: { kind: 'int', min: 0, max: 65535 },
  METRICS_HOST: { kind: 'string', def: '127.0.0.1', pattern: '^\\S+$' },
  OTEL_EXPORTER_OTLP_ENDPOINT: { kind: 'url', protocols: ['http:', 'https:'] },
  LOG_LEVEL: { kind: 'enum', values: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], def: 'info' },
} as const satisfies Record<string, Spec>;

type VarName = keyof typeof VARS;

function schemaFor(spec: Spec): object {
  switch (spec.kind) {
    case 'int':
      return { type: 'integer', minimum: spec.min, maximum: spec.max };
    case 'enum':
      return { type: 'string', enum: spec.values };
    case 'url':
      return { type: 'string', minLength: 1 };
    case 'string':
      return spec.pattern === undefined ? { type: 'string' } : { type: 'string', pattern: spec.pattern };
  }
}

const ajv = new Ajv({ coerceTypes: true, allErrors: false });
const validateEnv = ajv.compile({
  type: 'object',
  properties: Object.fromEntries(Object.entries(VARS).map(([name, spec]) => [name, schemaFor(spec)])),
});

function describe(spec: Spec): string {
  switch (spec.kind) {
    case 'int':
      return `an integer from ${spec.min} to ${spec.max}`;
    case 'enum':
      return `one of ${spec.values.join(', ')}`;
    case 'url':
      return `a URL with scheme ${spec.protocols.join(' or ')}`;
    case 'string':
      return 'a non-blank value';
  }
}

function fail(name: VarName, extra?: string): never {
  throw new ConfigError(`Invalid ${name}: expected ${extra ?? describe(VARS[name])}.`);
}

function parseCidrs(raw: string): string[] {
  const cidrs = raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  for (const cidr of cidrs) {
    const [addr, bits, ...rest] = cidr.split('/');
    const family = addr === undefined ? 0 : isIP(addr);
    const max = family === 6 ? 128 : 32;
    if (family === 0 || rest.length > 0 || bits === undefined || !/^\d{1,3}$/.test(bits) || Number(bits) > max) {
      fail('REMOTE_IMAGE_ALLOW_CIDRS', 'comma-separated CIDRs such as 127.0.0.1/32');
    }
  }
  return cidrs;
}

/** Parses the environment. Throws ConfigError with one line naming the variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const raw: Record<string, string | number> = {};
  for (const name of Object.keys(VARS) as VarName[]) {
    const value = env[name];
    // An empty variable counts as unset, the way shells and compose files mean it.
    if (value !== undefined && value !== '') raw[name] = value;
  }
  if (!validateEnv(raw)) {
    const error = validateEnv.errors?.[0];
    const name = (error?.instancePath.slice(1) ?? 'environment') as VarName;
    fail(name);
  }
  for (const [name, spec] of Object.entries(VARS) as [VarName, Spec][]) {
    if (spec.kind === 'url' && raw[name] !== undefined) {
      let protocol: string;
      try {
        protocol = new URL(String(raw[name])).protocol;
      } catch {
        fail(name);
      }
      if (!spec.protocols.includes(protocol)) fail(name);
    }
    if (raw[name] === undefined && 'def' in spec && spec.def !== undefined) raw[name] = spec.def;
  }
  const str = (name: VarName): string | undefined => (raw[name] === undefined ? undefined : String(raw[name]));
  const int = (name: VarName): number => Number(raw[name]);

  const geminiApiKey = str('GEMINI_API_KEY');
  const reportGenerator = (str('REPORT_GENERATOR') ?? (geminiApiKey ? 'gemini' : 'offline')) as GeneratorKind;
  if (reportGenerator === 'gemini' && !geminiApiKey) fail('GEMINI_API_KEY', 'a Gemini API key when REPORT_GENERATOR=gemini');
  const rateLimitStore = str('RATE_LIMIT_STORE') as RateLimitStore;
  const redisUrl = str('REDIS_URL');
  if (rateLimitStore === 'redis' && !redisUrl) fail('REDIS_URL', 'a redis:// URL when RATE_LIMIT_STORE=redis');

  return Object.freeze({
    port: int('PORT'),
    host: str('HOST') ?? '127.0.0.1',
    databaseUrl: str('DATABASE_URL'),
    dataDir: str('DATA_DIR') ?? './.data',
    reportGenerator,
    geminiApiKey,
    geminiModel: str('GEMINI_MODEL') ?? DEFAULT_GEMINI_MODEL,
    geminiBaseUrl: str('GEMINI_BASE_URL'),
    generatorTimeoutMs: int('GENERATOR_TIMEOUT_MS'),
    offlineGeneratorDelayMs: int('OFFLINE_GENERATOR_DELAY_MS'),
    rateLimitRequests: int('RATE_LIMIT_REQUESTS'),
    rateLimitWindowSeconds: int('RATE_LIMIT_WINDOW_SECONDS'),
    rateLimitStore,
    redisUrl,
    idempotencyRetentionHours: int('IDEMPOTENCY_RETENTION_HOURS'),
    imageMaxBytes: int('IMAGE_MAX_BYTES'),
    imageFetchTimeoutMs: int('IMAGE_FETCH_TIMEOUT_MS'),
    imageMaxRedirects: int('IMAGE_MAX_REDIRECTS'),
    imageMaxCount: int('IMAGE_MAX_COUNT'),
    imageUrlMaxChars: int('IMAGE_URL_MAX_CHARS'),
    imageFetchConcurrency: int('IMAGE_FETCH_CONCURRENCY'),
    imageBytesInFlightMax: int('IMAGE_BYTES_IN_FLIGHT_MAX'),
    evidenceTextMaxChars: int('EVIDENCE_TEXT_MAX_CHARS'),
    languageMaxChars: int('LANGUAGE_MAX_CHARS'),
    remoteImageAllowCidrs: Object.freeze(parseCidrs(str('REMOTE_IMAGE_ALLOW_CIDRS') ?? '')),
    bodyMaxBytes: int('BODY_MAX_BYTES'),
    shutdownTimeoutMs: int('SHUTDOWN_TIMEOUT_MS'),
    dbPoolSize: int('DB_POOL_SIZE'),
    dbConnectTimeoutMs: int('DB_CONNECT_TIMEOUT_MS'),
    dbStatementTimeoutMs: int('DB_STATEMENT_TIMEOUT_MS'),
    shutdownDrainMs: int('SHUTDOWN_DRAIN_MS'),
    listenBacklog: int('LISTEN_BACKLOG'),
    idempotencySweepIntervalSeconds: int('IDEMPOTENCY_SWEEP_INTERVAL_SECONDS'),
    imageMaxDimension: int('IMAGE_MAX_DIMENSION'),
    imageMaxPixels: int('IMAGE_MAX_PIXELS'),
    metricsPort: raw.METRICS_PORT === undefined ? undefined : int('METRICS_PORT'),
    metricsHost: str('METRICS_HOST') ?? '127.0.0.1',
    otelExporterOtlpEndpoint: str('OTEL_EXPORTER_OTLP_ENDPOINT'),
    logLevel: str('LOG_LEVEL') as LogLevel,
  });
}

/** The idempotency lease of ruling R14: generator timeout + image timeout + 30 s. */
export function idempotencyLeaseMs(config: Pick<Config, 'generatorTimeoutMs' | 'imageFetchTimeoutMs'>): number {
  return config.generatorTimeoutMs + config.imageFetchTimeoutMs + 30_000;
}

// Configuration is read once, validated against a JSON schema and frozen
// (operator-interface.md "Environment"). A bad value stops the start with one
// line naming the variable.
import { Ajv } from 'ajv';
import { isIP } from 'node:net';
import { postgresTlsProblem } from './db/postgres-tls.ts';
import { modelId } from './generation/model-id.ts';

export type RateLimitStore = 'postgres' | 'memory' | 'redis';
type GeneratorKind = 'offline' | 'gemini';
export type ThinkingLevel = 'minimal' | 'low' | 'medium' | 'high';
/** R45: HTTPS_PROXY / HTTP_PROXY / NO_PROXY, the upper-case spelling first when both are set. */
export interface EgressProxy {
  readonly httpsProxy: string | undefined;
  readonly httpProxy: string | undefined;
  readonly noProxy: string | undefined;
}
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/**
 * R42: two stable Flash models with no announced shutdown on the Gemini deprecations page
 * (read 2026-11-24): the newest first, its predecessor as the fallback. Both are the newest of
 * the stable list, so they are the last to be retired; both take the same settings (R43).
 */
export const DEFAULT_GEMINI_MODELS = Object.freeze(['gemini-3.8-flash', 'gemini-3.7-flash']);
/**
 * R43: the thinking levels follow the model family, and not every family takes all four.
 * Gemini 3.7 and 3.8 Flash (not their Flash-Lite) refuse `minimal` with 400 ("'minimal' is not
 * a supported thinking level for this model. Allowed values are: medium, low, high.", the API's
 * answer quoted in fishjar/kiss-translator#1048; Google's thinking-level table marks it "Not
 * supported (error)", as quoted in can1357/oh-my-pi#10543; BerriAI/litellm-docs#1505). Flash up
 * to 3.6 and Flash-Lite take it. A refused level would fail every request (a 400 does not fall
 * through to the next model, R42), so it stops the start instead. Other names are not judged.
 */
const REFUSES_MINIMAL_THINKING = /^gemini-3\.[78]-flash(?!-lite)(?:-|$)/;
/**
 * R43: a report is a few hundred output tokens; at the default thinking level (low) the
 * thoughts add a few hundred more. 8192 is several times that, so only a runaway answer (a
 * loop) reaches it, and it is cut there instead of at the model's own much larger limit.
 */
export const DEFAULT_GEMINI_MAX_OUTPUT_TOKENS = 8192;
const MODEL_NAME = /^[A-Za-z0-9._-]+(?:\/[A-Za-z0-9._-]+)*$/;

// ---------------------------------------------------------------------------------------------
// One entry per variable, keyed by the name the code reads (config.imageMaxBytes): the JSON
// schema that validates it, the sentence of its one-line error, its default and its parser all
// come from that entry, and so does the Config type. A variable is written once.

interface Variable<T> {
  /** The environment variable (operator-interface.md). */
  readonly env: string;
  /** JSON schema of the raw value; Ajv coerces integers. */
  readonly schema: object;
  /** What a bad value is told it should have been: "Invalid NAME: expected <this>." */
  readonly expected: string;
  /** The value, from the raw one (undefined when unset: the default applies here). */
  readonly read: (raw: string | undefined, reject: (expected?: string) => never) => T;
}

/**
 * Decimal digits only (spaces around them forgiven). Ajv's coercion alone would read " " as 0
 * and "0x10" or "1e3" as numbers; where 0 turns a bound off (MAX_IN_FLIGHT_PER_CUSTOMER,
 * ADMISSION_MAX_QUEUE_MS) a stray space must stop the start instead.
 */
const DECIMAL = /^\s*\d+\s*$/;

function int(env: string, min: number, max: number, def: number): Variable<number>;
function int(env: string, min: number, max: number): Variable<number | undefined>;
function int(env: string, min: number, max: number, def?: number): Variable<number | undefined> {
  return {
    env,
    schema: { type: 'integer', minimum: min, maximum: max },
    expected: `an integer from ${min} to ${max}`,
    read: (raw, reject) => {
      if (raw === undefined) return def;
      if (!DECIMAL.test(raw)) reject();
      return Number(raw);
    },
  };
}

function text(env: string, options: { def: string; pattern?: string; expected?: string }): Variable<string>;
function text(env: string, options?: { pattern?: string; expected?: string }): Variable<string | undefined>;
function text(env: string, options: { def?: string; pattern?: string; expected?: string } = {}): Variable<string | undefined> {
  const schema = options.pattern === undefined ? { type: 'string' } : { type: 'string', pattern: options.pattern };
  return { env, schema, expected: options.expected ?? 'a non-blank value', read: (raw) => raw ?? options.def };
}

function oneOf<const V extends string>(env: string, values: readonly V[], def: V): Variable<V>;
function oneOf<const V extends string>(env: string, values: readonly V[]): Variable<V | undefined>;
function oneOf<const V extends string>(env: string, values: readonly V[], def?: V): Variable<V | undefined> {
  return { env, schema: { type: 'string', enum: values }, expected: `one of ${values.join(', ')}`, read: (raw) => (raw === undefined ? def : (raw as V)) };
}

/**
 * What is wrong with a URL-valued variable, or undefined. Beyond its scheme: the WHATWG parser
 * silently drops tabs and line breaks (a password file read with its CRLF) and keeps a `%`
 * that is not an escape, while the clients that use the URL (Node's proxy support, undici, the
 * drivers) refuse both with an error that quotes the whole URL, password included. Refused
 * here instead, in a line that names the variable and never echoes the value (R26, R48).
 */
export function urlProblem(raw: string, protocols: readonly string[]): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    return `a URL with scheme ${protocols.join(' or ')}`;
  }
  if (!protocols.includes(parsed.protocol)) return `a URL with scheme ${protocols.join(' or ')}`;
  if ([...raw.trim()].some((c) => c <= ' ' || c === '\u007f')) return 'a URL without spaces, tabs, line breaks or other control characters';
  try {
    decodeURIComponent(parsed.username);
    decodeURIComponent(parsed.password);
  } catch {
    return 'a URL whose user and password are percent-encoded (a % written as %25)';
  }
  return undefined;
}

function url(env: string, protocols: readonly string[]): Variable<string | undefined> {
  const expected = `a URL with scheme ${protocols.join(' or ')}`;
  return {
    env,
    schema: { type: 'string', minLength: 1 },
    expected,
    read: (raw, reject) => {
      if (raw === undefined) return undefined;
      const problem = urlProblem(raw, protocols);
      if (problem !== undefined) reject(problem);
      return raw;
    },
  };
}

/**
 * The ports fetch refuses to connect to, whatever answers there ("bad port", Fetch Standard,
 * https://fetch.spec.whatwg.org/#port-blocking; the list undici applies): a base URL on one of
 * them would fail every generation with a network error that reads like a lost connection.
 */
const FETCH_BLOCKED_PORTS = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110, 111, 113, 115, 117, 119,
  123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990,
  993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);

/**
 * GEMINI_BASE_URL: the SDK appends `/v1beta/models/...` to it and sends it with fetch, which
 * refuses any URL carrying a user or password (every generation would then fail, 502) or naming
 * a bad port, and a query or fragment would end up in the middle of the path. Refused at start
 * instead.
 */
function endpointUrl(env: string): Variable<string | undefined> {
  const base = url(env, ['http:', 'https:']);
  return {
    ...base,
    read: (raw, reject) => {
      // base.read has refused whatever does not parse.
      const value = base.read(raw, reject);
      if (value === undefined) return undefined;
      const parsed = new URL(value);
      if (parsed.username !== '' || parsed.password !== '') reject('a URL without a user or password (fetch refuses credentials in a URL)');
      // The raw text, not parsed.search: an empty query ("…/?") parses to none.
      if (/[?#]/.test(value)) reject('a URL without a query or fragment (the API paths are appended to it)');
      if (parsed.port !== '' && FETCH_BLOCKED_PORTS.has(Number(parsed.port))) reject(`a port fetch does not block (${parsed.port} is on the Fetch Standard's list of bad ports)`);
      return value;
    },
  };
}

/**
 * REDIS_URL. ioredis takes every query parameter of the URL as a client option, over the options
 * the service passes (`?enableOfflineQueue=true&commandTimeout=60000` would undo R20's fail-fast
 * and R33's bound on a wait, the timeout even unbounded, as a string). Only `password` and
 * `family` (`?family=6`, as some hosts' IPv6-only networks need) are taken.
 */
function redisUrl(): Variable<string | undefined> {
  const base = url('REDIS_URL', ['redis:', 'rediss:']);
  return {
    ...base,
    read: (raw, reject) => {
      const value = base.read(raw, reject);
      if (value === undefined) return undefined;
      const { searchParams } = new URL(value);
      for (const [name, given] of searchParams) {
        if (name === 'password') continue;
        if (name === 'family' && /^[046]$/.test(given)) continue;
        reject('a URL with scheme redis: or rediss: whose query, if any, names only password or family (0, 4 or 6)');
      }
      return value;
    },
  };
}

/** A value with a parser of its own (lists, numbers with a range the schema cannot say). */
function parsed<T>(env: string, expected: string, read: (raw: string | undefined, reject: (expected?: string) => never) => T, pattern?: string): Variable<T> {
  return { env, schema: pattern === undefined ? { type: 'string' } : { type: 'string', pattern }, expected, read };
}

/** A comma-separated list: its items, blanks dropped. */
const items = (raw: string | undefined): string[] =>
  (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');

const VARIABLES = {
  port: int('PORT', 0, 65535, 8080),
  host: text('HOST', { def: '127.0.0.1', pattern: '^\\S+$', expected: 'a host name or address without spaces' }),
  /** Unset means the embedded database (R3). */
  databaseUrl: url('DATABASE_URL', ['postgres:', 'postgresql:']),
  /** R47: the session-level connection for migrations and locks; unset means DATABASE_URL. */
  databaseDirectUrl: url('DATABASE_DIRECT_URL', ['postgres:', 'postgresql:']),
  /** R47: false sends every statement unnamed (transaction-mode poolers). */
  databasePreparedStatements: parsed('DATABASE_PREPARED_STATEMENTS', 'one of true, false', (raw) => raw !== 'false', '^(true|false)$'),
  dataDir: text('DATA_DIR', { def: './.data', pattern: '\\S' }),
  /** Unset: `gemini` with a Gemini credential (R44), else `offline` (loadConfig decides). */
  reportGenerator: oneOf('REPORT_GENERATOR', ['offline', 'gemini']),
  geminiApiKey: text('GEMINI_API_KEY', { pattern: '^\\S+$', expected: 'a key without spaces' }),
  /** R42: the models tried in order, the primary first (comma-separated). */
  geminiModels: parsed(
    'GEMINI_MODEL',
    'comma-separated model names, each once, such as gemini-3.8-flash,gemini-3.7-flash',
    (raw, reject) => {
      const models = raw === undefined ? [...DEFAULT_GEMINI_MODELS] : raw.split(',').map((s) => s.trim());
      // Each once, however spelled: `models/gemini-3.8-flash` and `Gemini-3.8-Flash` are one model.
      if (models.some((m) => !MODEL_NAME.test(m)) || new Set(models.map(modelId)).size !== models.length) reject();
      return Object.freeze(models) as readonly string[];
    },
  ),
  geminiBaseUrl: endpointUrl('GEMINI_BASE_URL'),
  /** R43: unset means the model's own default is used. */
  geminiTemperature: parsed(
    'GEMINI_TEMPERATURE',
    'a number from 0 to 2',
    (raw, reject) => {
      if (raw === undefined) return undefined;
      const value = Number(raw);
      if (!(value >= 0 && value <= 2)) reject();
      return value;
    },
    '^\\s*[0-9]+(\\.[0-9]+)?\\s*$',
  ),
  geminiThinkingLevel: oneOf('GEMINI_THINKING_LEVEL', ['minimal', 'low', 'medium', 'high'], 'low'),
  geminiMaxOutputTokens: int('GEMINI_MAX_OUTPUT_TOKENS', 256, 1_000_000, DEFAULT_GEMINI_MAX_OUTPUT_TOKENS),
  /** R44: Vertex AI with Application Default Credentials instead of the Developer API. */
  vertexAi: parsed('GOOGLE_GENAI_USE_VERTEXAI', 'one of true, false, 1, 0, TRUE, FALSE, True, False', (raw) => ['true', '1'].includes(raw?.toLowerCase() ?? 'false'), '^(true|false|1|0|TRUE|FALSE|True|False)$'),
  googleCloudProject: text('GOOGLE_CLOUD_PROJECT', { pattern: '^[a-z][a-z0-9:.-]*[a-z0-9]$', expected: 'a Google Cloud project id such as my-project-123' }),
  googleCloudLocation: text('GOOGLE_CLOUD_LOCATION', { def: 'global', pattern: '^[a-z][a-z0-9-]*$', expected: 'a Google Cloud location such as global or europe-west4' }),
  generatorTimeoutMs: int('GENERATOR_TIMEOUT_MS', 100, 600_000, 30_000),
  /** Bench only: the offline generator waits this long before answering, as a model would. */
  offlineGeneratorDelayMs: int('OFFLINE_GENERATOR_DELAY_MS', 0, 600_000, 0),
  rateLimitRequests: int('RATE_LIMIT_REQUESTS', 1, 1_000_000_000, 60),
  rateLimitWindowSeconds: int('RATE_LIMIT_WINDOW_SECONDS', 1, 86_400, 60),
  rateLimitStore: oneOf('RATE_LIMIT_STORE', ['postgres', 'memory', 'redis'], 'postgres'),
  redisUrl: redisUrl(),
  /** R48: PEM file of a private CA for rediss://. */
  redisTlsCa: text('REDIS_TLS_CA', { pattern: '\\S' }),
  idempotencyRetentionHours: int('IDEMPOTENCY_RETENTION_HOURS', 1, 24 * 365, 24),
  imageMaxBytes: int('IMAGE_MAX_BYTES', 1, 100 * 1024 * 1024, 10 * 1024 * 1024),
  imageFetchTimeoutMs: int('IMAGE_FETCH_TIMEOUT_MS', 100, 120_000, 5_000),
  imageMaxRedirects: int('IMAGE_MAX_REDIRECTS', 0, 10, 3),
  imageMaxCount: int('IMAGE_MAX_COUNT', 1, 64, 8),
  imageUrlMaxChars: int('IMAGE_URL_MAX_CHARS', 16, 65_536, 2_048),
  imageFetchConcurrency: int('IMAGE_FETCH_CONCURRENCY', 1, 16, 4),
  /**
   * R39: image bytes held at once, process-wide: with the service's own ~200 MiB and the garbage
   * of socket reads, 192 MiB keeps a busy process under 600 MiB (bench: images under load).
   */
  imageBytesInFlightMax: int('IMAGE_BYTES_IN_FLIGHT_MAX', 1, 4 * 1024 * 1024 * 1024, 192 * 1024 * 1024),
  evidenceTextMaxChars: int('EVIDENCE_TEXT_MAX_CHARS', 1, 1_000_000, 20_000),
  languageMaxChars: int('LANGUAGE_MAX_CHARS', 1, 10_000, 100),
  /** Exempt from the blocked ranges and the port rule: local testing only (R22). */
  remoteImageAllowCidrs: parsed('REMOTE_IMAGE_ALLOW_CIDRS', 'comma-separated CIDRs such as 127.0.0.1/32', (raw, reject) => {
    const cidrs = items(raw);
    for (const cidr of cidrs) {
      const [addr, bits, ...rest] = cidr.split('/');
      const family = addr === undefined ? 0 : isIP(addr);
      const max = family === 6 ? 128 : 32;
      if (family === 0 || rest.length > 0 || bits === undefined || !/^\d{1,3}$/.test(bits) || Number(bits) > max) reject();
    }
    return Object.freeze(cidrs) as readonly string[];
  }),
  /** Ports image URLs may name besides 80 and 443; REMOTE_IMAGE_ALLOW_CIDRS addresses are exempt. */
  imageAllowedPorts: parsed('IMAGE_ALLOWED_PORTS', 'comma-separated ports from 1 to 65535 such as 8443,8080', (raw, reject) => {
    const ports = items(raw);
    if (ports.some((port) => !/^\d{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65535)) reject();
    return Object.freeze([...new Set(ports.map(Number))]) as readonly number[];
  }),
  /** R38: normalized images fit this many pixels on their long side. */
  imageMaxDimension: int('IMAGE_MAX_DIMENSION', 16, 16_384, 2048),
  /** R38: decoded images above this many pixels are refused (decompression bomb). */
  imageMaxPixels: int('IMAGE_MAX_PIXELS', 256, 1_000_000_000, 40_000_000),
  bodyMaxBytes: int('BODY_MAX_BYTES', 1024, 64 * 1024 * 1024, 1024 * 1024),
  shutdownTimeoutMs: int('SHUTDOWN_TIMEOUT_MS', 0, 600_000, 10_000),
  /** R35: after SIGTERM, keep serving this long with /readyz at 503. */
  shutdownDrainMs: int('SHUTDOWN_DRAIN_MS', 0, 600_000, 0),
  dbPoolSize: int('DB_POOL_SIZE', 1, 200, 10),
  /** R33: taking or opening a database connection, at most this long. */
  dbConnectTimeoutMs: int('DB_CONNECT_TIMEOUT_MS', 100, 120_000, 2_000),
  /** R33: one statement (and idle in a transaction) at most this long. */
  dbStatementTimeoutMs: int('DB_STATEMENT_TIMEOUT_MS', 100, 600_000, 5_000),
  /** R37: pending connections the listener queues (capped by the kernel's somaxconn). */
  listenBacklog: int('LISTEN_BACKLOG', 1, 1_048_576, 4096),
  /** R36: how often expired idempotency records, abandoned claims and rate-limit counters are swept. */
  idempotencySweepIntervalSeconds: int('IDEMPOTENCY_SWEEP_INTERVAL_SECONDS', 1, 86_400, 300),
  /** R51: client connections open at once; more are closed at once. */
  maxConnections: int('MAX_CONNECTIONS', 1, 1_000_000, 10_000),
  /** R51: request headers must arrive within this many ms. */
  headersTimeoutMs: int('HEADERS_TIMEOUT_MS', 100, 600_000, 10_000),
  /** R51: a whole request must arrive within this many ms; an answer must be taken within as long. */
  requestTimeoutMs: int('REQUEST_TIMEOUT_MS', 100, 600_000, 30_000),
  /** R51: an idle keep-alive connection closes after this many ms. */
  keepAliveTimeoutMs: int('KEEP_ALIVE_TIMEOUT_MS', 100, 600_000, 5_000),
  /** R52: report creations in flight per customer on this instance; 0 turns the limit off. */
  maxInFlightPerCustomer: int('MAX_IN_FLIGHT_PER_CUSTOMER', 0, 1_000_000, 16),
  /** R52: a new API request is refused before authentication when it would wait longer than this; 0 turns shedding off. */
  admissionMaxQueueMs: int('ADMISSION_MAX_QUEUE_MS', 0, 600_000, 1_000),
  /** R52: the ceiling of the adaptive concurrency limit of API requests on this instance. */
  admissionMaxConcurrency: int('ADMISSION_MAX_CONCURRENCY', 1, 1_000_000, 1_024),
  /** R40: the Prometheus listener; unset means no listener. */
  metricsPort: int('METRICS_PORT', 0, 65535),
  metricsHost: text('METRICS_HOST', { def: '127.0.0.1', pattern: '^\\S+$', expected: 'a host name or address without spaces' }),
  /** R41: OTLP/HTTP endpoint; unset means nothing is exported (and nothing is loaded). */
  otelExporterOtlpEndpoint: url('OTEL_EXPORTER_OTLP_ENDPOINT', ['http:', 'https:']),
  logLevel: oneOf('LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
} satisfies Record<string, Variable<unknown>>;

type Values<T> = { readonly [K in keyof T]: T[K] extends Variable<infer V> ? V : never };

/** The service's configuration: the table's values, and what depends on several variables. */
export type Config = Omit<Values<typeof VARIABLES>, 'reportGenerator'> & {
  readonly reportGenerator: GeneratorKind;
  /** R45: the egress proxy of the generator, its token requests and OTLP (never images). */
  readonly egressProxy: EgressProxy;
};

const ajv = new Ajv({ coerceTypes: true, allErrors: false });
const validateEnv = ajv.compile({
  type: 'object',
  properties: Object.fromEntries(Object.values(VARIABLES).map((variable: Variable<unknown>) => [variable.env, variable.schema])),
});

function failOn(variable: Pick<Variable<unknown>, 'env' | 'expected'>, expected?: string): never {
  throw new ConfigError(`Invalid ${variable.env}: expected ${expected ?? variable.expected}.`);
}

/**
 * R45: the proxy variables in either case (the upper-case spelling wins when both are set; the
 * service hands the chosen values to every client itself, so all of them see the same); they
 * are read here rather than in the table because each has two spellings.
 */
function readEgressProxy(env: NodeJS.ProcessEnv): EgressProxy {
  const pick = (name: 'HTTPS_PROXY' | 'HTTP_PROXY' | 'NO_PROXY'): string | undefined => {
    const given = [name, name.toLowerCase()].find((n) => env[n] !== undefined && env[n].trim() !== '');
    const value = given === undefined ? undefined : env[given]?.trim();
    if (value !== undefined && given !== undefined && name !== 'NO_PROXY') {
      // Named as the operator spelled it; the value is not echoed (it may carry a password).
      const problem = urlProblem(value, ['http:', 'https:']);
      if (problem !== undefined) throw new ConfigError(`Invalid ${given}: expected ${problem}.`);
    }
    return value;
  };
  return Object.freeze({ httpsProxy: pick('HTTPS_PROXY'), httpProxy: pick('HTTP_PROXY'), noProxy: pick('NO_PROXY') });
}

/** Parses the environment. Throws ConfigError with one line naming the variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const raw: Record<string, string> = {};
  for (const variable of Object.values(VARIABLES) as Variable<unknown>[]) {
    const value = env[variable.env];
    // An empty variable counts as unset, the way shells and compose files mean it.
    if (value !== undefined && value !== '') raw[variable.env] = value;
  }
  if (!validateEnv({ ...raw })) {
    const name = validateEnv.errors?.[0]?.instancePath.slice(1) ?? 'environment';
    const variable = (Object.values(VARIABLES) as Variable<unknown>[]).find((v) => v.env === name);
    throw new ConfigError(`Invalid ${name}: expected ${variable?.expected ?? 'a valid value'}.`);
  }
  const values = Object.fromEntries(
    Object.entries(VARIABLES).map(([key, variable]: [string, Variable<unknown>]) => [key, variable.read(raw[variable.env], (expected) => failOn(variable, expected))]),
  ) as Values<typeof VARIABLES>;

  // Rules across variables.
  const { geminiApiKey, vertexAi } = values;
  const reportGenerator: GeneratorKind = values.reportGenerator ?? (geminiApiKey || vertexAi ? 'gemini' : 'offline');
  if (reportGenerator === 'gemini' && !vertexAi && !geminiApiKey) {
    failOn(VARIABLES.geminiApiKey, 'a Gemini API key when REPORT_GENERATOR=gemini (or GOOGLE_GENAI_USE_VERTEXAI=true)');
  }
  if (reportGenerator === 'gemini' && values.geminiThinkingLevel === 'minimal') {
    const refusing = values.geminiModels.find((model) => REFUSES_MINIMAL_THINKING.test(modelId(model)));
    if (refusing !== undefined) {
      failOn(VARIABLES.geminiThinkingLevel, `low, medium or high: model ${refusing} of GEMINI_MODEL refuses minimal (400 INVALID_ARGUMENT); or list only models that take it (Flash-Lite)`);
    }
  }
  if (values.rateLimitStore === 'redis' && !values.redisUrl) failOn(VARIABLES.redisUrl, 'a redis:// URL when RATE_LIMIT_STORE=redis');
  // R48: a private CA for Redis means TLS was meant; with redis:// the password and the commands
  // would go in plain text, the CA ignored.
  if (values.redisTlsCa !== undefined && values.redisUrl?.startsWith('redis:')) failOn(VARIABLES.redisTlsCa, 'REDIS_URL to be rediss:// (TLS) when a CA is named');
  // R51: Node refuses a header bound longer than the whole-request bound.
  if (values.headersTimeoutMs > values.requestTimeoutMs) failOn(VARIABLES.headersTimeoutMs, 'at most REQUEST_TIMEOUT_MS');
  // R47, R48: the TLS parameters of both PostgreSQL URLs are checked here, so a bad sslmode
  // stops the start with one line naming its variable; the files are read when connecting.
  for (const key of ['databaseUrl', 'databaseDirectUrl'] as const) {
    const problem = postgresTlsProblem(values[key]);
    if (problem !== undefined) failOn(VARIABLES[key], problem);
  }
  if (values.databaseDirectUrl !== undefined && values.databaseUrl === undefined) failOn(VARIABLES.databaseDirectUrl, 'DATABASE_URL to be set as well');

  return Object.freeze({ ...values, reportGenerator, egressProxy: readEgressProxy(env) });
}

/** The idempotency lease of ruling R14: generator timeout + image timeout + 30 s. */
export function idempotencyLeaseMs(config: Pick<Config, 'generatorTimeoutMs' | 'imageFetchTimeoutMs'>): number {
  return config.generatorTimeoutMs + config.imageFetchTimeoutMs + 30_000;
}

/**
 * R14's lease is sized for one image timeout, but a request's image step can take several
 * (the images of a request are fetched a few at a time, each within its own timeout, then wait
 * for the decoder). So before the generator is asked, a claim with less than this left (one
 * generation and R14's 30 s for the rest) is renewed to a full lease: the generation then never
 * outlives the claim, and a retry cannot take the key over and pay for a second generation.
 */
export function idempotencyRenewBelowMs(config: Pick<Config, 'generatorTimeoutMs'>): number {
  return config.generatorTimeoutMs + 30_000;
}

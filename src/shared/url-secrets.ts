// Secrets of the connection URLs (DATABASE_URL, DATABASE_DIRECT_URL, REDIS_URL), of the egress
// proxy's and of the OTLP endpoints never reach a log line, an error or the admin command's
// output (R26, R48). No code path puts a URL into a
// message; this is the last guard on the few lines that print a dependency's own error text at
// start (a driver that one day quoted its connection string would still not leak it).
// A URL carries a secret in three places: its password; a `password` or `sslpassword` query
// parameter (node-postgres takes every query parameter as a connection setting, and ioredis
// takes `password` there too); and, in a Redis URL without a password, its user part, which
// redis-cli's `redis://[[user:]password@]host` reads as the password (`rediss://TOKEN@host`).
// A PostgreSQL user without a password is a role name, not a secret, and is kept.
import type { Config } from '../config.ts';

/** Query parameters that hold a password (compared without case). */
const SECRET_PARAMETERS: ReadonlySet<string> = new Set(['password', 'sslpassword']);

/** The URLs whose secrets are looked for; all but the connection URLs optional. */
type SecretUrls = Pick<Config, 'databaseUrl' | 'databaseDirectUrl' | 'redisUrl'> & Partial<Pick<Config, 'egressProxy' | 'otelExporterOtlpEndpoint'>>;

/**
 * The secrets (raw and decoded) in the configured URLs: the connection URLs, the egress proxy's
 * (R45: `http://user:password@proxy`, or a token as the lone user part) and the OTLP endpoints
 * (`env`: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, which the configuration does not hold).
 */
export function urlSecrets(config: SecretUrls, env: NodeJS.ProcessEnv = {}): string[] {
  const secrets = new Set<string>();
  const proxies = [config.egressProxy?.httpsProxy, config.egressProxy?.httpProxy];
  const others = [...proxies, config.otelExporterOtlpEndpoint, env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim()];
  for (const url of [config.databaseUrl, config.databaseDirectUrl, config.redisUrl, ...others]) {
    if (url === undefined || url === '') continue;
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      // an unparsable URL was refused by loadConfig already
      continue;
    }
    const { password, username, protocol } = parsed;
    addForms(secrets, password, decoded(password, decodeURIComponent));
    const userIsToken = protocol === 'redis:' || protocol === 'rediss:' || others.includes(url);
    if (password === '' && userIsToken) addForms(secrets, username, decoded(username, decodeURIComponent));
    for (const pair of parsed.search.slice(1).split('&')) {
      const at = pair.indexOf('=');
      if (at < 0) continue;
      const name = pair.slice(0, at);
      if (!SECRET_PARAMETERS.has((decoded(name, decodeQuery) ?? name).toLowerCase())) continue;
      const value = pair.slice(at + 1);
      addForms(secrets, value, decoded(value, decodeQuery));
    }
  }
  return [...secrets];
}

/** A secret as written in the URL and as decoded; an empty one would match between every two characters. */
function addForms(secrets: Set<string>, raw: string, decodedForm: string | undefined): void {
  if (raw !== '') secrets.add(raw);
  if (decodedForm !== undefined && decodedForm !== '') secrets.add(decodedForm);
}

/** The text decoded, or undefined when it is not well percent-encoded (the written form is then what a driver would print). */
function decoded(text: string, decode: (text: string) => string): string | undefined {
  try {
    return decode(text);
  } catch {
    return undefined;
  }
}

/** A query component as URLSearchParams (and so node-postgres) decodes it: `+` is a space. */
function decodeQuery(text: string): string {
  return decodeURIComponent(text.replaceAll('+', ' '));
}

/** The text with every secret replaced by `***`. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  // Longest first: a secret that contains another (a password and its sslpassword, say) goes whole.
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) {
    if (secret !== '') out = out.split(secret).join('***');
  }
  return out;
}

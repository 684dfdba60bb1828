// R48: TLS to PostgreSQL with libpq's meanings of sslmode, sslrootcert, sslcert and sslkey, for
// DATABASE_URL and DATABASE_DIRECT_URL alike. This is the one place that reads them.
//
// node-postgres parses sslmode itself (pg-connection-string), and not as libpq does: there,
// `require` verifies the certificate and the host name unless `uselibpqcompat=true` is also set,
// and `prefer` quietly means `require`. MikroORM builds the driver's options from the URL's host,
// port, user, password and database only, so the driver never sees these parameters: the `ssl`
// option is built here, explicitly, with libpq's meanings:
//
// | sslmode            | encrypted | chain checked against the CA | host name checked |
// |--------------------|-----------|------------------------------|-------------------|
// | disable (or unset) | no        | -                            | -                 |
// | unset, sslrootcert=system | as verify-full (libpq 16)                                   |
// | require            | yes       | only when sslrootcert is set (libpq: a root certificate turns require into verify-ca) | no |
// | verify-ca          | yes       | yes                          | no                |
// | verify-full        | yes       | yes                          | yes               |
//
// `sslrootcert=system` (libpq 16) means the system's trusted CAs, which is also what an unset
// sslrootcert means here for verify-ca and verify-full (libpq would look for
// ~/.postgresql/root.crt, which a container rarely has); as in libpq, it makes verify-full the
// default and refuses a weaker mode. `allow` and `prefer` fall back to plain text when TLS fails,
// a silent downgrade R48 rules out: they are refused at start, and so is a CA or a client
// certificate named without sslmode (libpq's default there is prefer).
//
// A server that refuses TLS, or a certificate that fails verification, is never retried
// without TLS or with less checking.
import { certificatesProblem, privateKeyProblem } from '../shared/pem-files.ts';
import { readFileSync, statSync } from 'node:fs';
import { isIP } from 'node:net';
import { checkServerIdentity, type ConnectionOptions } from 'node:tls';

const SSL_MODES = ['disable', 'require', 'verify-ca', 'verify-full'] as const;
type SslMode = (typeof SSL_MODES)[number];

const TLS_PARAMETERS = ['sslmode', 'sslrootcert', 'sslcert', 'sslkey'] as const;

/** A URL's host as libpq reads it: percent-decoded (a socket directory), an IPv6 literal without its brackets. */
function urlHost(parsed: URL): string {
  return decodeURIComponent(parsed.hostname).replace(/^\[(.*)\]$/, '$1');
}

/** Why a URL's TLS parameters are unusable, for the start's one line; undefined when they are fine. */
export function postgresTlsProblem(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  let params: URLSearchParams;
  try {
    params = new URL(url).searchParams;
  } catch {
    return undefined; // the URL check names the variable itself
  }
  const mode = params.get('sslmode');
  if (mode !== null && !(SSL_MODES as readonly string[]).includes(mode)) {
    return `sslmode to be one of ${SSL_MODES.join(', ')} (allow and prefer may fall back to plain text)`;
  }
  if ((params.get('sslcert') === null) !== (params.get('sslkey') === null)) return 'sslcert and sslkey together';
  // libpq's passphrase for an encrypted sslkey: not supported, so refused rather than ignored.
  if (params.has('sslpassword')) return 'no sslpassword (the client key is read without a passphrase: give sslkey a decrypted key at mode 0600)';
  const root = params.get('sslrootcert');
  // libpq 16: sslrootcert=system makes verify-full the default and refuses any weaker mode.
  if (root === 'system' && mode !== null && mode !== 'verify-full') return 'sslmode=verify-full with sslrootcert=system (libpq refuses a weaker mode)';
  // Without sslmode libpq would prefer TLS and fall back to plain text; read as disable here, the
  // certificates the URL names would be ignored without a word.
  if (mode === null && root !== 'system' && (root !== null || params.get('sslcert') !== null)) {
    return 'sslmode with sslrootcert, sslcert or sslkey (verify-full to check the server against the CA)';
  }
  return undefined;
}

/**
 * Whether a URL would send its password and data in plain text to another machine only because it
 * names no sslmode: unset means disable here (R48's table above), where libpq would try TLS first
 * (prefer). Loopback and Unix-socket hosts are this machine.
 */
export function plainTextByDefault(url: string): boolean {
  const parsed = new URL(url);
  if (parsed.searchParams.has('sslmode') || parsed.searchParams.get('sslrootcert') === 'system') return false;
  const host = urlHost(parsed).toLowerCase();
  if (host === '' || host.startsWith('/') || host === 'localhost' || host.endsWith('.localhost')) return false;
  if (isIP(host) === 4) return !host.startsWith('127.');
  if (isIP(host) === 6) return host !== '::1';
  return true;
}

export interface PostgresTls {
  readonly mode: SslMode;
  /** The `ssl` option of node-postgres: false, or the TLS options that give libpq's meaning. */
  readonly ssl: false | ConnectionOptions;
}

/** Thrown when a file the URL names cannot be read; the message names the variable, never the URL. */
export class PostgresTlsError extends Error {
  override readonly name = 'PostgresTlsError';
}

/** PEM's two marks of an encrypted key: PKCS#8 (`ENCRYPTED PRIVATE KEY`) and OpenSSL's traditional format (`Proc-Type: 4,ENCRYPTED`). */
function isEncryptedKey(pem: Buffer): boolean {
  const text = pem.toString('latin1');
  return text.includes('-----BEGIN ENCRYPTED PRIVATE KEY-----') || /^Proc-Type:\s*4,ENCRYPTED/m.test(text);
}

const ENCRYPTED_KEY = 'is encrypted: the service reads a client key without a passphrase (sslpassword is not supported); decrypt it (openssl pkey -in KEY -out PLAIN) and keep the file at mode 0600';

/**
 * libpq refuses a client key that others may read (fe-secure-openssl.c): a regular file, of mode
 * 0600 or less when the user it runs as owns it, 0640 or less when root does. So a key that
 * psql refuses with the same URL is refused here too, at start.
 */
function keyFileProblem(path: string | null): string | undefined {
  if (path === null) return undefined;
  const file = statSync(path);
  if (!file.isFile()) return 'is not a regular file';
  const ownedByUs = file.uid === process.geteuid?.();
  const tooOpen = ownedByUs ? file.mode & 0o077 : file.mode & 0o037;
  if (tooOpen !== 0) {
    return 'has group or world access; as libpq requires, it must be u=rw (0600) or less when owned by the user the service runs as, u=rw,g=r (0640) or less when owned by root';
  }
  return undefined;
}

/**
 * The `ssl` option for a URL (R48). `variable` names it in errors (DATABASE_URL,
 * DATABASE_DIRECT_URL). Reads the certificate and key files now, so a missing file stops the
 * start rather than the first request.
 */
export function postgresTls(url: string, variable: string): PostgresTls {
  const parsed = new URL(url);
  const params = parsed.searchParams;
  const problem = postgresTlsProblem(url);
  if (problem !== undefined) throw new PostgresTlsError(`Invalid ${variable}: expected ${problem}.`);
  const read = (parameter: 'sslrootcert' | 'sslcert' | 'sslkey'): Buffer | undefined => {
    const path = params.get(parameter);
    if (path === null || (parameter === 'sslrootcert' && path === 'system')) return undefined;
    let bytes: Buffer;
    try {
      bytes = readFileSync(path);
    } catch (error) {
      throw new PostgresTlsError(`Invalid ${variable}: ${parameter} ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}).`);
    }
    // The key is checked below, after its mode and encryption, which say more.
    const problem = parameter === 'sslkey' ? undefined : certificatesProblem(bytes);
    if (problem !== undefined) throw new PostgresTlsError(`Invalid ${variable}: ${parameter} ${path} ${problem}.`);
    return bytes;
  };
  const mode = (params.get('sslmode') ?? (params.get('sslrootcert') === 'system' ? 'verify-full' : 'disable')) as SslMode;
  if (mode === 'disable') return { mode, ssl: false };
  const ca = read('sslrootcert');
  const cert = read('sslcert');
  const key = read('sslkey');
  const keyProblem =
    keyFileProblem(params.get('sslkey')) ?? (key === undefined ? undefined : isEncryptedKey(key) ? ENCRYPTED_KEY : privateKeyProblem(key));
  if (keyProblem !== undefined) throw new PostgresTlsError(`Invalid ${variable}: sslkey ${params.get('sslkey') ?? ''} ${keyProblem}.`);
  const rootGiven = params.get('sslrootcert') !== null;
  const host = urlHost(parsed);
  const checkChain = mode !== 'require' || rootGiven;
  const ssl: ConnectionOptions = {
    ...(ca === undefined ? {} : { ca }),
    ...(cert === undefined ? {} : { cert }),
    ...(key === undefined ? {} : { key }),
    rejectUnauthorized: checkChain,
    // SNI only for a name (RFC 6066 forbids an address there).
    ...(isIP(host) === 0 && host !== '' ? { servername: host } : {}),
  };
  // verify-full checks the URL's host explicitly: the driver hands TLS an open socket and no host,
  // and Node would then check the certificate against "localhost" for an address.
  ssl.checkServerIdentity = mode === 'verify-full' ? (_servername, certificate) => checkServerIdentity(host, certificate) : () => undefined;
  return { mode, ssl };
}

/**
 * Host, port, user, password and database of a PostgreSQL URL, the parts MikroORM reads for the
 * pool of DATABASE_URL, and nothing else: node-postgres, given the URL itself, lets its
 * query parameters override the options beside it (`ssl=0` would turn R48's TLS off,
 * `query_timeout=0` R33's bound), so a pool of our own is given these parts only.
 */
export function connectionParts(url: string): { host: string; port: number; user: string; password: string; database: string } {
  const parsed = new URL(url);
  return {
    host: urlHost(parsed),
    port: parsed.port === '' ? 5432 : Number(parsed.port),
    user: decodeURIComponent(parsed.username),
    password: decodeURIComponent(parsed.password),
    database: decodeURIComponent(parsed.pathname).replace(/^\//, ''),
  };
}

/** The URL without its TLS parameters (the driver gets the `ssl` option instead). */
export function withoutTlsParameters(url: string): string {
  const parsed = new URL(url);
  for (const parameter of TLS_PARAMETERS) parsed.searchParams.delete(parameter);
  return parsed.toString();
}

const TLS_FAILURE_CODES = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_SIGNATURE_FAILURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/**
 * The one line a failed first connection stops the start with: names the variable and says
 * what failed (a certificate that failed verification, a server without TLS), never the URL.
 */
export function connectionFailureLine(error: unknown, variable: string, tls: PostgresTls): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  const message = (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
  if (typeof code === 'string' && TLS_FAILURE_CODES.has(code)) {
    return `${variable}: the database server's certificate failed verification (sslmode=${tls.mode}): ${message}`;
  }
  if (/does not support SSL/i.test(message)) {
    return `${variable}: the database server does not offer TLS, which sslmode=${tls.mode} requires`;
  }
  return `${variable}: cannot connect to the database: ${message}`;
}

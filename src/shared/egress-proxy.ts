// R45: the egress proxy. HTTPS_PROXY, HTTP_PROXY and NO_PROXY (either case) carry the
// generator's traffic, the token requests of R44 and OTLP exports; never image fetches.
//
// The service applies them itself, so an operator need not know Node's NODE_USE_ENV_PROXY:
// - the generator's requests (@google/genai): a fetch of its own (generatorFetch), undici's
//   EnvHttpProxyAgent from the undici package, not the one bundled with Node 24;
// - fetch() and the http/https global agents otherwise: Node 24's http.setGlobalProxyFromEnv()
//   with these values;
// - token requests (google-auth-library through gaxios): an agent of Node's own proxy support
//   with the same values (tokenRequestAgent); the metadata server's requests (gcp-metadata's own
//   gaxios) read the environment, where its hosts are in NO_PROXY;
// - OTLP: the exporter makes agents of its own, given the same values as `proxyEnv`
//   (otel-tracing.ts).
// The image fetcher opens its own connection per fetch to the address it checked and pinned
// (R22, `agent: false` in images/http-get.ts), so no global setting can send it through a
// proxy, which would undo the address check (test/e2e/egress-proxy.test.ts proves it).
//
// The metadata server (Cloud Run, GKE, GCE) is on the host's link-local address: a proxy cannot
// reach it and must not. Its hosts are added to NO_PROXY.
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { EgressProxy } from '../config.ts';

/** Node's proxy environment, as http.Agent's `proxyEnv` and setGlobalProxyFromEnv() take it. */
type ProxyEnv = { HTTP_PROXY?: string; HTTPS_PROXY?: string; NO_PROXY?: string };

// gcp-metadata also asks the name with its trailing dot; fd20:ce::254 is the IPv6 address.
export const METADATA_HOSTS = ['metadata.google.internal', 'metadata.google.internal.', 'metadata', '169.254.169.254', 'fd20:ce::254'];

/** An IPv6 address in both spellings: Node matches it bare, gaxios as URL.hostname writes it, in brackets. */
function spellings(host: string): string[] {
  return host.includes(':') ? [host, `[${host}]`] : [host];
}

/** True when a proxy is configured at all. */
export function proxyConfigured(proxy: EgressProxy): boolean {
  return proxy.httpsProxy !== undefined || proxy.httpProxy !== undefined;
}

/** The hostname of GCE_METADATA_HOST / GCE_METADATA_IP ("host:port" or a URL), when set. */
function metadataOverride(env: NodeJS.ProcessEnv): string | undefined {
  const value = env.GCE_METADATA_IP ?? env.GCE_METADATA_HOST;
  if (value === undefined || value.trim() === '') return undefined;
  try {
    return new URL(/^https?:\/\//.test(value) ? value : `http://${value}`).hostname.replace(/^\[(.*)\]$/, '$1');
  } catch {
    return undefined;
  }
}

/**
 * A NO_PROXY entry as both matchers read it the same way. fetch() (undici) takes `example.com`
 * to cover its subdomains too, Node's agents only the name itself unless it is written
 * `.example.com`; so a bare name is given in both spellings, and both cover the subdomains.
 */
function noProxySpellings(entry: string): string[] {
  if (entry.startsWith('.') || entry.startsWith('*') || isIP(entry.replace(/^\[(.*)\]$/, '$1').replace(/:\d+$/, '')) !== 0 || entry.includes('/')) return [entry];
  return [entry, `.${entry}`];
}

/**
 * The proxy environment the service uses: the operator's, plus the metadata server's hosts in
 * NO_PROXY. Every client gets these same values, so they agree where undici and Node's own
 * proxy support would not:
 * - HTTP_PROXY alone serves https:// too (undici does so; Node's agents would go direct, and in
 *   a network where only the proxy reaches out, token requests and exports would fail);
 * - `*` anywhere in NO_PROXY turns the proxy off for everything (undici honours `*` only as the
 *   whole value, so it is passed alone);
 * - a bare name covers its subdomains for both (noProxySpellings).
 */
export function proxyEnv(proxy: EgressProxy, env: NodeJS.ProcessEnv = process.env): ProxyEnv {
  const own = (proxy.noProxy ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const override = metadataOverride(env);
  const metadata = [...METADATA_HOSTS, ...(override === undefined ? [] : [override])].flatMap(spellings);
  const noProxy = own.includes('*') ? '*' : [...new Set([...own.flatMap(noProxySpellings), ...metadata])].join(',');
  const httpsProxy = proxy.httpsProxy ?? proxy.httpProxy;
  return {
    ...(proxy.httpProxy === undefined ? {} : { HTTP_PROXY: proxy.httpProxy }),
    ...(httpsProxy === undefined ? {} : { HTTPS_PROXY: httpsProxy }),
    NO_PROXY: noProxy,
  };
}

/**
 * The agent google-auth-library's token requests go out with (gaxios takes it as is): Node's own
 * proxy support, with the same proxy and NO_PROXY as everything else. gaxios's own matching of
 * NO_PROXY knows neither `*`, nor `host:port`, nor upper case, so a host the operator exempted
 * could still be sent through the proxy. Undefined without a proxy (direct, as gaxios does then).
 */
export function tokenRequestAgent(proxy: EgressProxy, env: NodeJS.ProcessEnv = process.env): ((url: URL) => http.Agent) | undefined {
  if (!proxyConfigured(proxy)) return undefined;
  const proxied = { keepAlive: true, proxyEnv: proxyEnv(proxy, env) };
  const agents = { http: new http.Agent(proxied), https: new https.Agent(proxied) };
  return (url) => (url.protocol === 'http:' ? agents.http : agents.https);
}

/**
 * The fetch the generator's SDK is given when a proxy is configured (undefined without one: the
 * SDK then uses Node's own fetch, direct).
 *
 * Not Node's own fetch through setGlobalProxyFromEnv: the undici bundled with Node 24 (7.x) takes
 * a proxy that closes the connection while the CONNECT tunnel is being set up (a proxy
 * restarting, at its connection limit, or a load balancer without a backend) for a recoverable
 * socket error. The request is left queued and connect() is driven again at once, without end:
 * thousands of CONNECTs a second, a processor's worth of work, until the deadline and beyond it,
 * since an aborted request stays queued too (nodejs/undici#3897). The undici package from 8.13
 * fails such a request (nodejs/undici#5441, UND_ERR_PRX_CONN): it is then `unreachable`, and goes
 * on to the next model (R42). Its headers and body timeouts are off, as the SDK sets them for its
 * own dispatcher: GENERATOR_TIMEOUT_MS bounds the whole call.
 */
export async function generatorFetch(proxy: EgressProxy, env: NodeJS.ProcessEnv = process.env): Promise<typeof fetch | undefined> {
  if (!proxyConfigured(proxy)) return undefined;
  const { EnvHttpProxyAgent, fetch: undiciFetch } = await import('undici');
  const values = proxyEnv(proxy, env);
  // '' and not undefined: EnvHttpProxyAgent would read the environment for a missing one.
  const dispatcher = new EnvHttpProxyAgent({
    httpProxy: values.HTTP_PROXY ?? '',
    httpsProxy: values.HTTPS_PROXY ?? '',
    noProxy: values.NO_PROXY ?? '',
    headersTimeout: 0,
    bodyTimeout: 0,
  });
  const proxied = (input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> =>
    undiciFetch(input as Parameters<typeof undiciFetch>[0], { ...(init as Parameters<typeof undiciFetch>[1]), dispatcher }) as unknown as Promise<Response>;
  return proxied as typeof fetch;
}

/**
 * Routes fetch() and the global agents through the proxy, and gives gaxios the same NO_PROXY.
 * Returns the function that undoes it (the service calls it when it closes). Without a proxy
 * nothing is changed.
 */
export function applyEgressProxy(proxy: EgressProxy, env: NodeJS.ProcessEnv = process.env): () => void {
  if (!proxyConfigured(proxy)) return () => {};
  const values = proxyEnv(proxy, env);
  const restoreGlobal = http.setGlobalProxyFromEnv(values);
  // gaxios (google-auth-library's HTTP client) reads these from the environment on each request.
  const saved = { HTTPS_PROXY: env.HTTPS_PROXY, HTTP_PROXY: env.HTTP_PROXY, NO_PROXY: env.NO_PROXY };
  env.NO_PROXY = values.NO_PROXY;
  if (values.HTTPS_PROXY !== undefined) env.HTTPS_PROXY = values.HTTPS_PROXY;
  if (values.HTTP_PROXY !== undefined) env.HTTP_PROXY = values.HTTP_PROXY;
  return () => {
    restoreGlobal();
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete env[name];
      else env[name] = value;
    }
  };
}

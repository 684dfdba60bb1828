// Application Default Credentials for Vertex AI (R44), as google-auth-library resolves them: the
// service-account key file named by GOOGLE_APPLICATION_CREDENTIALS, else the metadata server of
// Cloud Run, GKE or GCE (at GCE_METADATA_HOST when set). The SDK is handed the same AuthClient,
// so the token fetched here before each attempt is the one it sends (the library caches it and
// refreshes it before it expires).
//
// A credential that cannot be obtained is GenerationError('unavailable', 'credentials_<why>'):
// 503 report_generation_unavailable, logged once, by the request's own `dependency failure` line
// (with its requestId), with that fixed reason and the error's errno code, never its message: a
// token request's error carries its request, whose body is a signed assertion, and a key file's
// parse error may quote the file.
//
// Every wait on them is bounded (R33): each request's wait by the generator's deadline, and a key
// file's token request by a timeout of its own (gcp-metadata sets the metadata server's: 3 s off
// Google Cloud, none on it, where the server is on the host). A credential lookup or token
// request that failed, or that a request stopped waiting for, is forgotten with everything the
// library remembered of it (reset): the library shares one token request among all callers and
// keeps a failed project or metadata-server lookup for the life of the process, so without it one
// hung token request, or a metadata server that was briefly away at the first lookup, would fail
// every later request until a restart.
import { resetIsAvailableCache } from 'gcp-metadata';
import { GoogleAuth } from 'google-auth-library';
import type { AuthClient } from 'google-auth-library';
import type { Agent } from 'node:http';
import { GenerationError } from './report-generator.ts';

/** What Vertex AI needs (the SDK asks for the same scope when it makes its own GoogleAuth). */
const VERTEX_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';

// ERR_PROXY_TUNNEL: the egress proxy (R45) refused the token request's tunnel (407, 403, 502).
const NETWORK_CODE = /^(E[A-Z]+|UND_ERR_[A-Z_]+|ERR_PROXY_TUNNEL)$/;

/** A fixed reason for a credential failure, from the error's type, code and HTTP status only. */
function credentialFailureReason(error: unknown): { reason: string; code: string | undefined } {
  let code: string | undefined;
  let status: number | undefined;
  let timedOut = false;
  for (let current = error, depth = 0; typeof current === 'object' && current !== null && depth < 5; depth++) {
    const candidate = current as { code?: unknown; status?: unknown; response?: { status?: unknown }; cause?: unknown; name?: unknown };
    if (code === undefined && typeof candidate.code === 'string' && NETWORK_CODE.test(candidate.code)) code = candidate.code;
    if (status === undefined && typeof candidate.response?.status === 'number') status = candidate.response.status;
    // A token request past its own timeout (gcp-metadata's 3 s for the metadata server, ours for
    // a key file's): gaxios aborts it, and says so only by the error's name.
    if (candidate.name === 'AbortError' || candidate.name === 'TimeoutError') timedOut = true;
    current = candidate.cause;
  }
  if (error instanceof SyntaxError) return { reason: 'key_file_invalid', code: undefined };
  if (code === 'ENOENT' || code === 'EACCES' || code === 'EISDIR') return { reason: 'key_file_unreadable', code };
  if (status !== undefined) return { reason: `token_endpoint_http_${status}`, code: undefined };
  if (timedOut) return { reason: 'token_endpoint_timeout', code: undefined };
  if (code !== undefined) return { reason: 'token_endpoint_unreachable', code };
  const message = error instanceof Error ? error.message : '';
  if (/could not load the default credentials/i.test(message)) return { reason: 'no_default_credentials', code: undefined };
  if (/unable to detect a project id/i.test(message)) return { reason: 'no_project_id', code: undefined };
  return { reason: 'error', code: undefined };
}

export class VertexCredentials {
  readonly #timeoutMs: number;
  #auth: GoogleAuth;
  #client: AuthClient | undefined;
  #project: string | undefined;

  readonly #agent: ((url: URL) => Agent) | undefined;

  /**
   * `timeoutMs` bounds each token request (the generator's deadline bounds each wait anyway);
   * `agent`, when an egress proxy is configured, is the one token requests go out with (R45).
   */
  constructor(options: { timeoutMs: number; agent?: ((url: URL) => Agent) | undefined }) {
    this.#timeoutMs = options.timeoutMs;
    this.#agent = options.agent;
    this.#auth = this.#newAuth();
  }

  /** The ADC client and the project (GOOGLE_CLOUD_PROJECT, else the credentials' own project). */
  async client(project: string | undefined): Promise<{ authClient: AuthClient; project: string }> {
    const auth = this.#auth;
    try {
      const client = this.#client ?? (await auth.getClient());
      const found = this.#project ?? project ?? (await auth.getProjectId());
      if (auth === this.#auth) [this.#client, this.#project] = [client, found];
      return { authClient: client, project: found };
    } catch (error) {
      this.reset(auth);
      throw this.#failed(error);
    }
  }

  /** Makes sure a valid access token is cached (fetching one when needed). */
  async token(authClient: AuthClient): Promise<void> {
    try {
      const { token } = await authClient.getAccessToken();
      if (typeof token !== 'string' || token === '') throw new Error('no access token');
    } catch (error) {
      this.reset(authClient);
      throw this.#failed(error);
    }
  }

  /**
   * Forgets the client and what the library remembered (a shared token request still under way,
   * a failed project or metadata-server lookup): the next request starts afresh. For a failure,
   * and for a request that stopped waiting. `from`: only if the credentials (or their client)
   * are still those, so that an old request's failure does not undo what a newer one made.
   */
  reset(from?: GoogleAuth | AuthClient): void {
    if (from !== undefined && from !== this.#auth && from !== this.#client) return;
    this.#auth = this.#newAuth();
    this.#client = undefined;
    this.#project = undefined;
    resetIsAvailableCache();
  }

  #newAuth(): GoogleAuth {
    const transporterOptions = { timeout: this.#timeoutMs, ...(this.#agent === undefined ? {} : { agent: this.#agent }) };
    return new GoogleAuth({ scopes: [VERTEX_SCOPE], clientOptions: { transporterOptions } });
  }

  #failed(error: unknown): GenerationError {
    const { reason, code } = credentialFailureReason(error);
    return new GenerationError('unavailable', `credentials_${reason}`, { code });
  }
}

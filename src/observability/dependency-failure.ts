// What the one log line of a failed dependency says (R26, R40): which
// dependency, and a reason from a closed list. Both are derived from the answer's catalogue
// code and the machine-readable parts of its cause chain (error classes, SQLSTATE, errno
// codes, the boundary's own reasons); an error's message is only matched against the fixed
// texts of the drivers, never written anywhere.
import type { ApiError, ErrorCode } from '../errors/catalogue.ts';
import { GenerationError } from '../generation/report-generator.ts';
import { CREDENTIAL_REASON } from '../generation/credential-reasons.ts';
import { ImageFetchError } from '../images/image-fetch-error.ts';
import { PersistenceFailure } from '../db/persistence-failure.ts';

export const DEPENDENCIES = ['database', 'rate_limit_store', 'image_host', 'generator', 'trace_collector', 'none'] as const;
type Dependency = (typeof DEPENDENCIES)[number];

const DEPENDENCY_OF: Partial<Record<ErrorCode, Dependency>> = {
  api_key_authentication_unavailable: 'database',
  entitlement_check_unavailable: 'database',
  idempotency_unavailable: 'database',
  idempotency_replay_unavailable: 'database',
  quota_check_unavailable: 'database',
  evidence_report_write_failed: 'database',
  usage_recording_failed: 'database',
  current_usage_unavailable: 'database',
  rate_limit_unavailable: 'rate_limit_store',
  remote_evidence_image_unavailable: 'image_host',
  report_generation_unavailable: 'generator',
  report_generation_failed: 'generator',
  invalid_generated_report: 'generator',
};

/** Reasons of the database and the rate-limit store (SQLSTATE classes, socket errors, driver timeouts). */
export const STORE_REASONS = ['connection', 'timeout', 'statement_timeout', 'resources', 'serialization', 'database_error', 'claim_lost'] as const;
/** The generator adapters' reasons (src/generation), with the HTTP status of the provider as http_NNN. */
export const GENERATOR_REASONS = [
  'aborted',
  'timeout',
  'unreachable',
  'connection_lost',
  'proxy_refused',
  'api_key_invalid',
  'malformed_provider_response',
  'provider_error',
  'prompt_blocked',
  'empty_answer',
  'truncated',
  'safety_block',
  'refused',
  'not_json',
  'schema_violation',
] as const;

const generatorReasons: ReadonlySet<string> = new Set(GENERATOR_REASONS);

function generatorReason(error: GenerationError): string {
  if (generatorReasons.has(error.reason) || /^http_\d{3}$/.test(error.reason) || CREDENTIAL_REASON.test(error.reason)) return error.reason;
  // The result check (R24) explains where the result broke the contract: a path, not a reason.
  return error.kind === 'invalid' ? 'schema_violation' : error.kind;
}

const SOCKET_CODES = /^(ECONNREFUSED|ECONNRESET|ECONNABORTED|EPIPE|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|ENOTCONN)$/;
// The fixed texts of pg, pg-pool and ioredis for lost connections and their own timeouts.
const CONNECTION_TEXT = /^(Connection terminated|Connection is closed|Client has encountered a connection error|Stream isn't writeable|Redis connection is not ready)/;
const TIMEOUT_TEXT = /^(timeout exceeded when trying to connect|Query read timeout|Command timed out|Connection terminated due to connection timeout)/;

/**
 * The server's SQLSTATE of a failure. record_evidence_report raises ER001 or ER002 to name the
 * write that failed, with the server's own SQLSTATE as the detail: that is the reason.
 */
function serverCode(error: Error): unknown {
  const { code, detail } = error as { code?: unknown; detail?: unknown };
  if ((code === 'ER001' || code === 'ER002') && typeof detail === 'string' && /^[0-9A-Z]{5}$/.test(detail)) return detail;
  return code;
}

function storeReason(error: Error): string | undefined {
  const code = serverCode(error);
  if (typeof code === 'string') {
    if (code === '57014') return 'statement_timeout';
    if (code === 'ETIMEDOUT') return 'timeout';
    if (SOCKET_CODES.test(code) || /^(08...|57P0[123])$/.test(code)) return 'connection';
    if (/^53...$/.test(code)) return 'resources';
    if (/^40(001|P01)$/.test(code)) return 'serialization';
    if (/^[0-9A-Z]{5}$/.test(code)) return 'database_error';
  }
  if (error.name === 'MaxRetriesPerRequestError' || CONNECTION_TEXT.test(error.message)) return 'connection';
  if (TIMEOUT_TEXT.test(error.message)) return 'timeout';
  return undefined;
}

/** The dependency behind an answer of the catalogue, and why it failed; `unexpected` when unknown. */
export function dependencyFailure(error: ApiError): { dependency: Dependency; reason: string } {
  let dependency = DEPENDENCY_OF[error.code] ?? 'none';
  let current: unknown = error.cause;
  for (let depth = 0; current instanceof Error && depth < 6; depth++, current = current.cause) {
    // A report read that the database could not make answers report_generation_unavailable
    // (R54's 503), but the dependency that failed is the database.
    if (current instanceof PersistenceFailure && dependency === 'generator') dependency = 'database';
    if (current instanceof ImageFetchError) return { dependency, reason: current.reason };
    if (current instanceof GenerationError) return { dependency, reason: generatorReason(current) };
    // The idempotency claim was taken over after its lease ran out (R14): not a database fault.
    if (current instanceof PersistenceFailure && current.kind === 'claim_lost') return { dependency, reason: 'claim_lost' };
    const reason = storeReason(current);
    if (reason !== undefined) return { dependency, reason };
  }
  return { dependency, reason: 'unexpected' };
}

// Steps 9 and 10 on PostgreSQL (ruling R15): record_evidence_report writes the report, its usage
// unit and the idempotency completion in one statement, so one round trip and one transaction,
// and the usage_counter trigger runs inside it (R17). No connection is taken before this point
// (R16). The function is called with named arguments, built from one table of name, cast and
// field, so two columns cannot be swapped by position.
import { PersistenceFailure, type PersistenceFailureKind } from '../db/persistence-failure.ts';
import { statement, type Sql } from '../db/sql.ts';
import { storableJson, storableText } from '../db/storable.ts';
import { EVIDENCE_REPORTS_PRODUCT } from '../plans/product-entitlement.entity.ts';
import { EVIDENCE_REPORT_OPERATION } from '../usage/usage-record.entity.ts';
import type { ReportRecord, ReportRepository } from './report-repository.ts';

const json = (value: unknown) => (value === null ? null : JSON.stringify(value));

// Argument name of record_evidence_report, its SQL type, and where its value comes from.
const ARGUMENTS: readonly [name: string, type: string, value: (r: ReportRecord) => unknown][] = [
  ['p_report_id', 'uuid', (r) => r.reportId],
  ['p_customer_id', 'uuid', (r) => r.customerId],
  ['p_api_key_id', 'uuid', (r) => r.apiKeyId],
  ['p_request_id', 'text', (r) => r.requestId],
  ['p_context', 'text', (r) => r.context],
  ['p_language', 'text', (r) => (r.language === null ? null : storableText(r.language))],
  ['p_input', 'jsonb', (r) => storableJson(r.input)],
  ['p_images', 'jsonb', (r) => json(r.images)],
  ['p_result', 'jsonb', (r) => json(r.result)],
  ['p_generator', 'text', (r) => r.generator],
  ['p_model', 'text', (r) => r.model],
  ['p_generation_ms', 'int', (r) => Math.round(r.generationMs)],
  ['p_token_usage', 'jsonb', (r) => json(r.tokenUsage)],
  ['p_at', 'timestamptz', (r) => r.at.toISOString()],
  ['p_usage_id', 'uuid', (r) => r.usageId],
  ['p_operation', 'text', () => EVIDENCE_REPORT_OPERATION],
  ['p_units', 'int', (r) => r.units],
  ['p_product', 'text', () => EVIDENCE_REPORTS_PRODUCT],
  ['p_idempotency_key', 'text', (r) => r.idempotency?.key ?? null],
  ['p_lease_expires_at', 'timestamptz', (r) => r.idempotency?.leaseExpiresAt ?? null],
  ['p_idempotency_expires_at', 'timestamptz', (r) => r.idempotency?.expiresAt ?? null],
  // R42, R43: which model answered is p_model; its tokens by kind.
  ['p_tokens_input', 'int', (r) => r.tokens.input],
  ['p_tokens_output', 'int', (r) => r.tokens.output],
  ['p_tokens_thinking', 'int', (r) => r.tokens.thinking],
  ['p_mode', 'text', (r) => r.mode],
];

const RECORD = statement(
  'record_evidence_report',
  `select record_evidence_report(${ARGUMENTS.map(([name, type], i) => `${name} => $${i + 1}::${type}`).join(', ')})`,
);

// SQLSTATEs raised by record_evidence_report for each of its writes.
const FAILURES: Record<string, PersistenceFailureKind> = {
  ER001: 'report_not_written',
  ER002: 'usage_not_recorded',
  ER003: 'claim_lost',
};

/**
 * SQLSTATEs of a statement that did not get to its writes' own errors: no connection could be
 * had (08 connection exception, 28 the login refused, 3D000 no such database, 53300 too many
 * connections, 57P03 the server starting or recovering), or the server ended the session (57P01,
 * 57P02). Like a lost connection, step 9's code: in the second case the outcome is as unknown as
 * after a lost answer (a session ended while it waited for a synchronous standby had committed).
 */
const NEVER_RAN = /^(?:08|28)|^(?:3D000|53300|57P01|57P02|57P03)$/;

/** Which write failed, from the statement's failure. */
export function failureKind(failure: Pick<PersistenceFailure, 'sqlState'>): PersistenceFailureKind {
  const { sqlState } = failure;
  // No connection, or no answer from the server: step 9's code (nothing written, or an outcome
  // this process cannot know: docs/integrating.md tells clients to retry with the same key).
  if (sqlState === undefined || NEVER_RAN.test(sqlState)) return 'unavailable';
  // A server error outside the function's own blocks comes after its two writes: in the
  // idempotency completion's UPDATE (a lock wait past the bound, say) or at the end of the
  // transaction (a deferred constraint, a serialization failure). Either aborts both writes; R15
  // counts the commit as usage, so it is step 10's code.
  return FAILURES[sqlState] ?? 'usage_not_recorded';
}

export class PgReportRepository implements ReportRepository {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  async record(record: ReportRecord): Promise<void> {
    try {
      await this.#sql.rows(
        RECORD,
        ARGUMENTS.map(([, , value]) => value(record)),
      );
    } catch (cause) {
      if (!(cause instanceof PersistenceFailure)) throw cause;
      throw new PersistenceFailure(failureKind(cause), { cause: cause.cause, sqlState: cause.sqlState });
    }
  }
}

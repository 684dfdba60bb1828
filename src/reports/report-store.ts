// Steps 9 and 10 (ruling R15): the report, its usage unit and the idempotency completion
// commit in ONE transaction, so a stored report always has its unit and a unit its report.
// The usage_counter total is kept by a trigger in that same transaction (R17).
// No connection is taken before this point (ruling R16).
import { randomUUID } from 'node:crypto';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { GenerationOutput, ReportResult } from '../generation/report-generator.ts';
import { ApiError } from '../errors/catalogue.ts';
import { storableJson, storableText } from '../db/storable.ts';
import type { Principal } from '../auth/principal.ts';
import { USAGE_OPERATION } from '../usage/plan-usage.ts';
import type { CreateEvidenceReportRequest, ImageMetadata } from './pipeline-state.ts';

export interface CompletedReport {
  readonly principal: Principal;
  readonly requestId: string;
  readonly request: CreateEvidenceReportRequest;
  readonly images: readonly ImageMetadata[];
  readonly generation: GenerationOutput;
  readonly result: ReportResult;
  readonly now: Date;
}

const INSERT_REPORT = `insert into evidence_report (id, customer_id, api_key_id, request_id, context, language,
  input, images, result, generator, model, generation_ms, token_usage, created_at)
  values (?, ?, ?, ?, ?, ?, ?::jsonb, ?::jsonb, ?::jsonb, ?, ?, ?, ?::jsonb, ?)`;
const INSERT_USAGE = `insert into usage_record (id, customer_id, operation, units, report_id, occurred_at)
  values (?, ?, '${USAGE_OPERATION}', 1, ?, ?)`;
const SELECT_RESULT = `select result from evidence_report where id = ? and customer_id = ?`;

type Phase = 'begin' | 'report' | 'usage' | 'commit';

export class ReportStore {
  readonly #orm: MikroORM;

  constructor(orm: MikroORM) {
    this.#orm = orm;
  }

  /**
   * Stores the report and its unit; `alsoInTransaction` runs last in the same transaction
   * (the idempotency completion). Throws evidence_report_write_failed when the report cannot
   * be written, usage_recording_failed when the unit or the commit fails; nothing remains.
   */
  async persist(report: CompletedReport, alsoInTransaction?: (tx: EntityManager, reportId: string) => Promise<void>): Promise<string> {
    const id = randomUUID();
    const at = report.now.toISOString();
    let phase = 'begin' as Phase;
    try {
      await this.#orm.em.fork().transactional(async (tx) => {
        phase = 'report';
        await tx.execute(INSERT_REPORT, reportRow(id, at, report), 'run');
        phase = 'usage';
        await tx.execute(INSERT_USAGE, [randomUUID(), report.principal.customerId, id, at], 'run');
        await alsoInTransaction?.(tx, id);
        phase = 'commit';
      });
    } catch (cause) {
      if (cause instanceof ApiError) throw cause;
      const code = phase === 'begin' || phase === 'report' ? 'evidence_report_write_failed' : 'usage_recording_failed';
      throw new ApiError(code, { cause });
    }
    return id;
  }

  /** The stored result of a report, for an idempotent replay; undefined when it is gone. */
  async loadResult(customerId: string, reportId: string): Promise<unknown> {
    const rows = await this.#orm.em.fork().execute<{ result: unknown }[]>(SELECT_RESULT, [reportId, customerId], 'all');
    return rows[0]?.result;
  }
}

function reportRow(id: string, at: string, report: CompletedReport): unknown[] {
  const { principal, request, generation } = report;
  // Image metadata only: the bytes are not kept, and neither is anything of the fetch.
  const images = report.images.map((image) => ({
    index: image.index,
    mimeType: image.mimeType,
    sizeBytes: image.sizeBytes,
    sha256: image.sha256,
  }));
  return [
    id,
    principal.customerId,
    principal.apiKeyId,
    report.requestId,
    request.context,
    request.language === undefined ? null : storableText(request.language),
    storableJson(request),
    JSON.stringify(images),
    storableJson(report.result),
    generation.generator,
    generation.model,
    Math.round(generation.latencyMs),
    generation.tokenUsage === null ? null : JSON.stringify(generation.tokenUsage),
    at,
  ];
}

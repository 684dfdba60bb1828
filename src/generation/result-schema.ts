// The report result as the contract defines it (components.schemas.ReportResult, spec 2.3):
// the one source of truth for what a generator may hand back. Ruling R24: the candidate is
// rebuilt field by field from the eight known keys (extra fields dropped, never exposed) and
// checked with Ajv against the contract's own schema; anything the contract cannot represent
// is a GenerationError('invalid'), which the pipeline maps to 502 invalid_generated_report.
import { Ajv } from 'ajv';
import type { ValidateFunction } from 'ajv';
import { GenerationError } from './report-generator.ts';
import type { ReportResult } from './report-generator.ts';

/** The part of the OpenAPI document this module reads (an OpenAPIV3.Document fits). */
export interface ContractDocument {
  readonly components?: { readonly schemas?: Readonly<Record<string, unknown>> };
}

/** A JSON schema object as it appears in the contract, $refs resolved. */
export type JsonSchema = { readonly [keyword: string]: unknown };

const RESULT_SCHEMA_NAME = 'ReportResult';

/** The eight fields of spec 2.3, in the contract's order. */
export const RESULT_FIELDS = [
  'title',
  'description',
  'category',
  'priority',
  'suggestedNextStep',
  'tags',
  'riskFlags',
  'confidence',
] as const satisfies readonly (keyof ReportResult)[];

const LOCAL_REF = /^#\/components\/schemas\/([^/]+)$/;

/** Inlines every local `#/components/schemas/X` reference (the contract has no cycles here). */
function resolveRefs(node: unknown, schemas: Readonly<Record<string, unknown>>, seen: readonly string[]): unknown {
  if (Array.isArray(node)) return node.map((item) => resolveRefs(item, schemas, seen));
  if (node === null || typeof node !== 'object') return node;
  const ref = (node as Record<string, unknown>)['$ref'];
  if (typeof ref === 'string') {
    const name = LOCAL_REF.exec(ref)?.[1];
    if (name === undefined || !(name in schemas)) throw new Error(`contract: unresolvable $ref ${ref}`);
    if (seen.includes(name)) throw new Error(`contract: cyclic $ref ${ref}`);
    return resolveRefs(schemas[name], schemas, [...seen, name]);
  }
  return Object.fromEntries(
    Object.entries(node as Record<string, unknown>).map(([key, value]) => [key, resolveRefs(value, schemas, seen)]),
  );
}

/** components.schemas.ReportResult with its $refs inlined (a deep copy: the document is not touched). */
export function resolveReportResultSchema(document: ContractDocument): JsonSchema {
  const schemas = document.components?.schemas ?? {};
  const schema = schemas[RESULT_SCHEMA_NAME];
  if (schema === undefined) throw new Error(`contract: components.schemas.${RESULT_SCHEMA_NAME} is missing`);
  return resolveRefs(schema, schemas, [RESULT_SCHEMA_NAME]) as JsonSchema;
}

export interface ResultValidator {
  /** The contract's ReportResult schema, $refs resolved. */
  readonly schema: JsonSchema;
  /**
   * Builds the public result from a generator's candidate, field by field (R24).
   * @throws GenerationError('invalid') when the contract cannot represent the candidate.
   */
  toReportResult(candidate: unknown): ReportResult;
}

/** Compiles the contract's result schema once; call at composition time, not per request. */
export function createResultValidator(document: ContractDocument): ResultValidator {
  const schema = resolveReportResultSchema(document);
  // Ajv knows OpenAPI's `nullable`; strict mode stays on so that a keyword the contract adds
  // and Ajv would silently ignore fails here, at start-up, instead.
  const ajv = new Ajv({ allErrors: false, strict: true, strictRequired: false });
  ajv.addKeyword({ keyword: 'example' });
  const validate: ValidateFunction = ajv.compile(schema);

  return Object.freeze({
    schema,
    toReportResult(candidate: unknown): ReportResult {
      if (candidate === null || typeof candidate !== 'object' || Array.isArray(candidate)) {
        throw new GenerationError('invalid', 'result is not a JSON object');
      }
      const source = candidate as Record<string, unknown>;
      // Field by field: only the eight known keys are read, so an extra field can never ride
      // along into storage or a response (R24).
      const picked: Record<string, unknown> = {};
      for (const field of RESULT_FIELDS) {
        if (Object.hasOwn(source, field)) picked[field] = source[field];
      }
      if (!validate(picked)) {
        const error = validate.errors?.[0];
        // instancePath and keyword only: never the offending value (it is provider output).
        const where = error?.instancePath === '' ? '/' : (error?.instancePath ?? '/');
        throw new GenerationError('invalid', `result breaks the contract at ${where} (${error?.keyword ?? 'schema'})`);
      }
      // Ajv's `number` excludes NaN and the infinities, so confidence is a real number in [0, 1].
      return copyReportResult(picked as ReportResult);
    },
  });
}

/**
 * The eight fields of a result, named one by one, with fresh arrays: the copy shares nothing
 * with its source and carries nothing else (used for candidates and for every 201 body).
 */
export function copyReportResult(result: ReportResult): ReportResult {
  return {
    title: result.title,
    description: result.description,
    category: result.category,
    priority: result.priority,
    suggestedNextStep: result.suggestedNextStep,
    tags: [...result.tags],
    riskFlags: [...result.riskFlags],
    confidence: result.confidence,
  };
}

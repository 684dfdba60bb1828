// Gemini's response schema, derived from the contract's ReportResult (one source of
// truth, so enums and types are asked for at the source). Gemini takes "a select subset of an
// OpenAPI 3.0 schema object" (ruling R0): upper-case type names, `nullable`, `enum`,
// `properties` with `propertyOrdering`, `required`, `items`, `minimum` / `maximum`.
// Keywords it does not take are dropped only where the pipeline re-checks them anyway (R24:
// every answer still goes through toReportResult); any other keyword stops the derivation, so
// a contract change Gemini cannot express fails at start-up and in the drift test.
import type { JsonSchema } from './result-schema.ts';

type GeminiType = 'STRING' | 'NUMBER' | 'INTEGER' | 'BOOLEAN' | 'ARRAY' | 'OBJECT';

export interface GeminiSchema {
  type: GeminiType;
  description?: string;
  nullable?: boolean;
  enum?: string[];
  properties?: Record<string, GeminiSchema>;
  propertyOrdering?: string[];
  required?: string[];
  items?: GeminiSchema;
  minimum?: number;
  maximum?: number;
}

const TYPES: Readonly<Record<string, GeminiType>> = {
  string: 'STRING',
  number: 'NUMBER',
  integer: 'INTEGER',
  boolean: 'BOOLEAN',
  array: 'ARRAY',
  object: 'OBJECT',
};

/** Not sent, because toReportResult enforces them on every answer (R24). */
const RECHECKED_BY_PIPELINE = new Set(['additionalProperties', 'minLength', 'maxLength', 'pattern', 'example']);

function fail(path: string, what: string): never {
  throw new Error(`contract: ReportResult${path} cannot be expressed as a Gemini response schema (${what})`);
}

function derive(node: JsonSchema, path: string): GeminiSchema {
  const type = typeof node['type'] === 'string' ? TYPES[node['type']] : undefined;
  if (type === undefined) fail(path, 'type');
  const out: GeminiSchema = { type };
  for (const [keyword, value] of Object.entries(node)) {
    switch (keyword) {
      case 'type':
        break;
      case 'description':
        if (typeof value !== 'string') fail(path, keyword);
        out.description = value;
        break;
      case 'nullable':
        if (typeof value !== 'boolean') fail(path, keyword);
        out.nullable = value;
        break;
      case 'enum':
        if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) fail(path, keyword);
        out.enum = [...(value as string[])];
        break;
      case 'required':
        if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) fail(path, keyword);
        out.required = [...(value as string[])];
        break;
      case 'minimum':
      case 'maximum':
        if (typeof value !== 'number') fail(path, keyword);
        out[keyword] = value;
        break;
      case 'items':
        out.items = derive(value as JsonSchema, `${path}[]`);
        break;
      case 'properties': {
        const entries = Object.entries(value as Record<string, JsonSchema>);
        out.properties = Object.fromEntries(entries.map(([name, child]) => [name, derive(child, `${path}.${name}`)]));
        // Gemini emits properties in this order; the contract's order reads naturally.
        out.propertyOrdering = entries.map(([name]) => name);
        break;
      }
      default:
        if (!RECHECKED_BY_PIPELINE.has(keyword)) fail(path, keyword);
    }
  }
  return out;
}

/** The Gemini response schema for a resolved ReportResult schema (see resolveReportResultSchema). */
export function deriveGeminiResponseSchema(resultSchema: JsonSchema): GeminiSchema {
  return derive(resultSchema, '');
}

// The published contract, loaded once by the composition root: the YAML text as committed,
// the same document as JSON, and the parsed object openapi-backend routes and validates with.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import type { OpenAPIV3 } from 'openapi-types';

export const CONTRACT_PATH = fileURLToPath(new URL('../../contract/openapi.yaml', import.meta.url));

export interface Contract {
  readonly document: OpenAPIV3.Document;
  readonly yaml: string;
  readonly json: string;
  /** IDEMPOTENCY_RETENTION_HOURS as the served texts publish it (R14). */
  readonly retentionHours?: number;
}

/** The retention the committed contract states: the default of IDEMPOTENCY_RETENTION_HOURS. */
export const PUBLISHED_RETENTION_HOURS = 24;

/**
 * R14: the contract publishes how long completed Idempotency-Keys are kept. The committed text
 * states the default, 24 hours (every "24 hours" in it is that retention; a test holds it so);
 * an instance configured for another retention serves its own figure in /openapi.yaml,
 * /openapi.json and /docs, so that what a client reads is what the instance does.
 */
export function withRetention(text: string, hours: number = PUBLISHED_RETENTION_HOURS): string {
  if (hours === PUBLISHED_RETENTION_HOURS) return text;
  return text.replaceAll(/\b24 hours\b/g, `${hours} ${hours === 1 ? 'hour' : 'hours'}`);
}

export async function loadContract(path: string = CONTRACT_PATH, retentionHours: number = PUBLISHED_RETENTION_HOURS): Promise<Contract> {
  const yaml = withRetention(await readFile(path, 'utf8'), retentionHours);
  const document = parse(yaml) as OpenAPIV3.Document;
  return Object.freeze({ document, yaml, json: JSON.stringify(document, null, 2), retentionHours });
}

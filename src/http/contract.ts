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
}

export async function loadContract(path: string = CONTRACT_PATH): Promise<Contract> {
  const yaml = await readFile(path, 'utf8');
  const document = parse(yaml) as OpenAPIV3.Document;
  return Object.freeze({ document, yaml, json: JSON.stringify(document, null, 2) });
}

// Prepends the do-not-edit banner to a file generated from the contract.
import { readFileSync, writeFileSync } from 'node:fs';

export const BANNER =
  '// GENERATED FILE: DO NOT EDIT. Source: contract/openapi.yaml. Regenerate with `npm run generate`.\n';

export function markGenerated(path: string): void {
  const text = readFileSync(path, 'utf8');
  writeFileSync(path, text.startsWith(BANNER) ? text : BANNER + text);
}

if (import.meta.main) {
  const path = process.argv[2];
  if (!path) throw new Error('usage: mark-generated.ts <file>');
  markGenerated(path);
}

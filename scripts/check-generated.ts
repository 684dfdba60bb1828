// CI guard: generated/ must be exactly what the generators make of the contract now: the types
// (openapi-typescript) and the API reference page served at GET /docs (scripts/build-docs.ts).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildDocsPage, DOCS_PAGE } from './build-docs.ts';
import { markGenerated } from './mark-generated.ts';

let stale = false;
const dir = mkdtempSync(join(tmpdir(), 'ers-generated-'));
try {
  const fresh = join(dir, 'openapi.d.ts');
  execFileSync('node_modules/.bin/openapi-typescript', ['contract/openapi.yaml', '-o', fresh], { stdio: 'pipe' });
  markGenerated(fresh);
  if (readFileSync(fresh, 'utf8') !== readFileSync('generated/openapi.d.ts', 'utf8')) {
    console.error('generated/openapi.d.ts is stale: run `npm run generate` and commit the result.');
    stale = true;
  } else console.log('generated/openapi.d.ts matches contract/openapi.yaml.');
} finally {
  rmSync(dir, { recursive: true, force: true });
}
if (buildDocsPage() !== readFileSync(DOCS_PAGE, 'utf8')) {
  console.error('generated/api-reference.html is stale: run `npm run generate` and commit the result.');
  stale = true;
} else console.log('generated/api-reference.html matches contract/openapi.yaml.');
process.exit(stale ? 1 : 0);

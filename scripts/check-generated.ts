// CI guard: generated/ must be exactly what openapi-typescript makes of the contract now.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { markGenerated } from './mark-generated.ts';

const dir = mkdtempSync(join(tmpdir(), 'ers-generated-'));
try {
  const fresh = join(dir, 'openapi.d.ts');
  execFileSync('node_modules/.bin/openapi-typescript', ['contract/openapi.yaml', '-o', fresh], { stdio: 'pipe' });
  markGenerated(fresh);
  if (readFileSync(fresh, 'utf8') !== readFileSync('generated/openapi.d.ts', 'utf8')) {
    console.error('generated/openapi.d.ts is stale: run `npm run generate` and commit the result.');
    process.exit(1);
  }
  console.log('generated/openapi.d.ts matches contract/openapi.yaml.');
} finally {
  rmSync(dir, { recursive: true, force: true });
}

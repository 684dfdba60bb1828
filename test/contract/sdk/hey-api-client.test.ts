// Conformance: @hey-api/openapi-ts, another generator customers use, generates a
// client (types, SDK functions, fetch client) from contract/openapi.yaml without errors,
// offline, into a temporary directory; the output and a few lines using it type-check with
// strict settings.
import { copyFile, mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import { CONTRACT, ROOT, STRICT_COMPILER_OPTIONS, runNodeOffline, scratchPackage, typeCheck } from './offline-tools.ts';

const HEY_API = join(ROOT, 'node_modules', '@hey-api', 'openapi-ts', 'bin', 'run.js');
const USAGE = join(ROOT, 'test', 'contract', 'sdk', 'program', 'hey-api-usage.ts.template');

describe('@hey-api/openapi-ts generates a client from the contract that type-checks, offline in a network namespace', function () {
  this.timeout(120_000);
  let scratch: Awaited<ReturnType<typeof scratchPackage>>;

  before(async function () {
    scratch = await scratchPackage('ers-sdk-hey-api-');
  });

  after(async function () {
    await scratch?.cleanup();
  });

  it('generates without errors or warnings, then the output and its use type-check with strict settings', async function () {
    const out = join(scratch.dir, 'out');
    // The form docs/integrating.md gives, run where the contract sits at contract/openapi.yaml:
    // with the leading "./" (a bare "contract/openapi.yaml" reads as a Hey API registry shorthand).
    await mkdir(join(scratch.dir, 'contract'));
    await copyFile(CONTRACT, join(scratch.dir, 'contract', 'openapi.yaml'));
    const generated = await runNodeOffline(HEY_API, ['-i', './contract/openapi.yaml', '-o', out, '--no-log-file'], scratch.dir);
    expect(generated.code, generated.output).to.equal(0);
    expect(generated.output).not.to.match(/error|warn|❌/i);
    expect(await readdir(out)).to.include.members(['index.ts', 'sdk.gen.ts', 'types.gen.ts', 'client.gen.ts']);

    await copyFile(USAGE, join(scratch.dir, 'hey-api-usage.ts'));
    // exactOptionalPropertyTypes off: Hey API's bundled fetch runtime (out/core, out/client) does
    // not compile under it, whatever the contract; everything else of the strict set stays on.
    const compilerOptions = { ...STRICT_COMPILER_OPTIONS, exactOptionalPropertyTypes: false };
    const checked = await typeCheck(scratch.dir, { compilerOptions, include: ['hey-api-usage.ts', 'out/**/*.ts'] });
    expect(checked.code, checked.output).to.equal(0);
  });
});

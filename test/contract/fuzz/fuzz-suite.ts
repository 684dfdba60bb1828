// One mocha suite per property: its own service and fuzz customer, the CI seed and run count.
import { startFuzzTarget, type FuzzTarget } from './fuzz-target.ts';
import { CI_SEED, checkProperty, type FuzzProperty } from './properties.ts';

export function fuzzSuite(property: FuzzProperty): void {
  describe(`hostile input, fast-check seed ${CI_SEED}, ${property.ciRuns} runs`, function () {
    this.timeout(180_000);
    let target: FuzzTarget;

    before(async function () {
      target = await startFuzzTarget();
    });

    after(async function () {
      await target?.close();
    });

    it(property.name, async function () {
      await checkProperty(property, target, { seed: CI_SEED, numRuns: property.ciRuns });
    });
  });
}

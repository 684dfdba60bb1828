// The step labels of the operator interface (R40 metric label `step`, R41 span names
// `ers.step.<label>`): the one list in src/observability/step-labels.ts is the one the operator
// interface fixes; test/unit/reports/create-report-steps.test.ts shows the use case runs them in order.
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { STEP_LABELS } from '../../../src/observability/step-labels.ts';

describe('pipeline step labels (R40, R41)', () => {
  it('are exactly the labels operator-interface.md fixes for ers_pipeline_step_duration_seconds, in order', () => {
    const spec = readFileSync(new URL('../../../docs/spec/operator-interface.md', import.meta.url), 'utf8');
    const row = spec.split('\n').find((line) => line.startsWith('| `ers_pipeline_step_duration_seconds`'));
    const labels = [...(row ?? '').matchAll(/`(\d+(?:_\d+)?_[a-z_]+)`/g)].map((m) => m[1]);
    expect(labels).to.deep.equal([...STEP_LABELS]);
  });
});

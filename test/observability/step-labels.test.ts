// The step labels of the operator interface (R40 metric label `step`, R41 span names
// `ers.step.<label>`): every stage of the pipeline maps to one, in the order of spec section 1,
// so a stage added, removed or renumbered without its label fails here, not in production.
import { expect } from 'chai';
import { createReportStages, type CreateEvidenceReportDeps } from '../../src/reports/create-evidence-report.ts';
import { STEP_LABELS, stepLabel } from '../../src/observability/step-labels.ts';

describe('pipeline step labels (R40, R41)', () => {
  it('the stages of report creation carry the labels 2_validate to 11_respond, in order (steps 1 and 2 start at the HTTP edge)', () => {
    const limits = { textMaxChars: 1, imageMaxCount: 1, urlMaxChars: 1, languageMaxChars: 1 };
    const stages = createReportStages({ limits } as unknown as CreateEvidenceReportDeps);
    expect(stages.map((stage) => stepLabel(stage.step))).to.deep.equal(STEP_LABELS.slice(1));
  });

  it('the label comes from the step number the stage text starts with; an unknown step is refused', () => {
    expect(stepLabel('3. technical rate limit')).to.equal('3_rate_limit');
    expect(stepLabel('9-10. persist the report and record usage (one transaction)')).to.equal('9_10_persist');
    expect(stepLabel('11. return the public result')).to.equal('11_respond');
    expect(() => stepLabel('12. something new')).to.throw('no step label');
    expect(() => stepLabel('validate')).to.throw('no step label');
  });
});

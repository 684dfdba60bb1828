// The step labels of the operator interface (metric `ers_pipeline_step_duration_seconds`,
// label `step`; span names `ers.step.<label>`, R41). Fixed: dashboards and alerts depend on them.
export const STEP_LABELS = [
  '1_authenticate',
  '2_validate',
  '3_rate_limit',
  '4_entitlement',
  '5_idempotency',
  '6_quota',
  '7_fetch_images',
  '8_generate',
  '9_10_persist',
  '11_respond',
] as const;

export type StepLabel = (typeof STEP_LABELS)[number];

const BY_NUMBER = new Map<string, StepLabel>(STEP_LABELS.map((label) => [label.replace(/_[a-z].*$/, '').replace('_', '-'), label]));
/** The request path asks for the same few texts on every request: parsed once each. */
const seen = new Map<string, StepLabel>();

/**
 * The label of a pipeline stage, from the step number its `step` text starts with
 * ('3. technical rate limit' -> '3_rate_limit', '9-10. persist ...' -> '9_10_persist'), so the
 * stages keep their readable texts and the labels stay in this one list. An unknown step is a
 * programming error, found by the first test that runs the pipeline.
 */
export function stepLabel(stageStep: string): StepLabel {
  let label = seen.get(stageStep);
  if (label !== undefined) return label;
  label = BY_NUMBER.get(/^(\d+(?:-\d+)?)\./.exec(stageStep)?.[1] ?? '');
  if (label === undefined) throw new Error(`no step label for the stage "${stageStep}"`);
  seen.set(stageStep, label);
  return label;
}

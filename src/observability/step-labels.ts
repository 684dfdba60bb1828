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

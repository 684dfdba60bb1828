// The eleven steps of spec section 1 by the labels of the operator interface (metrics, traces,
// logs), and the hook through which each step runs, so that an observer (issue 13) can time it.
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

/** Runs one step; the default runs it and nothing else. */
export type StepRunner = <T>(step: StepLabel, run: () => Promise<T> | T) => Promise<T>;

export const runStep: StepRunner = async (_step, run) => run();

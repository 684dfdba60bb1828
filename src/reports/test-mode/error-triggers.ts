// Error triggers of test mode (R53): a test-mode request whose evidence text contains
// `ers_test_trigger:<code>` fails with that code at the step where the code arises, so that an
// integrator's CI can exercise every error path on purpose. Which codes can be triggered, and
// at which step, is derived from the catalogue's ERROR_ORIGIN: every code that a report creation
// can get after authentication. Authentication's own codes (the request has no mode before its
// key is known), the other operations' codes and the router's are not triggers.
import { ERROR_ORIGIN, type ErrorCode } from '../../errors/catalogue.ts';
import { STEP_LABELS, type StepLabel } from '../../observability/step-labels.ts';

const TRIGGER_PREFIX = 'ers_test_trigger:';

/** Steps after authentication, where a trigger can fire. */
const AFTER_AUTHENTICATION: ReadonlySet<string> = new Set(STEP_LABELS.slice(1));

/**
 * An unexpected error (`any_step`) is triggered just before steps 9-10: the latest point at which
 * nothing has been written, so that, as for every trigger, nothing is recorded.
 */
const ANY_STEP_FIRES_AT: StepLabel = '9_10_persist';

function firesAt(code: ErrorCode): StepLabel | undefined {
  const origin: string = ERROR_ORIGIN[code];
  if (origin === 'any_step') return ANY_STEP_FIRES_AT;
  return AFTER_AUTHENTICATION.has(origin) ? (origin as StepLabel) : undefined;
}

/** Every code that can be triggered, in the order of the steps, with the step it fires at. */
export const ERROR_TRIGGERS: ReadonlyMap<ErrorCode, StepLabel> = new Map(
  (Object.keys(ERROR_ORIGIN) as ErrorCode[])
    .map((code) => [code, firesAt(code)] as const)
    .filter((entry): entry is readonly [ErrorCode, StepLabel] => entry[1] !== undefined)
    .sort((a, b) => STEP_LABELS.indexOf(a[1]) - STEP_LABELS.indexOf(b[1])),
);

/**
 * A code is the whole word after the prefix: it ends at the first character that is not a
 * letter, digit or underscore (the contract says so), so `internal_error2` and `internal_errors`
 * are no trigger, as `internal_errors` never was, while `internal_error.` ends a sentence.
 */
const PATTERN = /ers_test_trigger:([a-z_]+)(?![A-Za-z0-9_])/g;

/** The place of a triggerable code's step in the order of the steps. */
const stepIndex = (code: ErrorCode): number => STEP_LABELS.indexOf(ERROR_TRIGGERS.get(code) as StepLabel);

/**
 * The triggerable code named in `text` whose step comes first, as a request failing at two steps
 * fails at the earlier one (the first named, between two of one step). A name that is not a
 * triggerable code is plain text, as the whole text is for a live key.
 */
export function triggerIn(text: string | undefined): ErrorCode | undefined {
  if (text === undefined || !text.includes(TRIGGER_PREFIX)) return undefined;
  let found: ErrorCode | undefined;
  for (const match of text.matchAll(PATTERN)) {
    const code = match[1] as ErrorCode;
    if (!ERROR_TRIGGERS.has(code)) continue;
    if (found === undefined || stepIndex(code) < stepIndex(found)) found = code;
  }
  return found;
}

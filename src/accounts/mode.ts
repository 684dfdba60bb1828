// Test mode (R53): every key, report, usage unit, idempotency record and rate-limit bucket
// belongs to one mode. A key's mode is fixed at creation and written in its prefix
// (`ers_live_` or `ers_test_`); everything a request touches is in its key's mode.
export const MODES = ['live', 'test'] as const;
export type Mode = (typeof MODES)[number];

export function isMode(value: unknown): value is Mode {
  return value === 'live' || value === 'test';
}

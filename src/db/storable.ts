// PostgreSQL cannot hold U+0000 in text or jsonb, and jsonb rejects a lone UTF-16 surrogate
// (JSON.stringify writes it as a \udXXX escape that is no character). Both are valid in a JSON
// request and in a generator's answer, so a string bound for storage carries U+FFFD in their
// place: a request with them is stored and answered (201), never a 503 that no retry can fix.
export function storableText(value: string): string {
  return value.toWellFormed().replaceAll('\u0000', '\ufffd');
}

/**
 * The escapes JSON.stringify writes for U+0000 and for a lone surrogate (a valid pair is written
 * as its characters). A literal backslash before "u0000" (written as an escaped backslash, then
 * "u0000") matches too: that only costs the careful path below, never a wrong answer.
 */
const UNSTORABLE_ESCAPE = /\\u(?:0000|d[89a-f][0-9a-f]{2})/i;

const storableStrings = (_key: string, item: unknown): unknown => (typeof item === 'string' ? storableText(item) : item);

/** JSON text whose every string is storable (object keys come from the contract's schemas). */
export function storableJson(value: unknown): string {
  // Nearly every value has nothing to replace: one plain stringify and one scan decide that.
  const json = JSON.stringify(value);
  return UNSTORABLE_ESCAPE.test(json) ? JSON.stringify(value, storableStrings) : json;
}

/** The same JSON value (a copy: what JSON drops, such as undefined members, is gone) with every string storable. */
export function storableValue<T>(value: T): T {
  return JSON.parse(storableJson(value)) as T;
}

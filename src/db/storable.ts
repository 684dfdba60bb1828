// PostgreSQL cannot hold U+0000 in text or jsonb, and jsonb rejects a lone UTF-16 surrogate
// (JSON.stringify writes it as a \udXXX escape that is no character). Both are valid in a JSON
// request and in a generator's answer, so a string bound for storage carries U+FFFD in their
// place: a request with them is stored and answered (201), never a 503 that no retry can fix.
export function storableText(value: string): string {
  return value.toWellFormed().replaceAll('\u0000', '\ufffd');
}

/** JSON text whose every string is storable (object keys come from the contract's schemas). */
export function storableJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => (typeof item === 'string' ? storableText(item) : item));
}

/** The same JSON value with every string storable. */
export function storableValue<T>(value: T): T {
  return JSON.parse(storableJson(value)) as T;
}

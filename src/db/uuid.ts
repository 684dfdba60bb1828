// Ids stored in uuid columns. A text that is no UUID names no row, and must not reach such a
// column: PostgreSQL would answer with a type error that says nothing about the caller's input.
const CANONICAL_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const UUID = new RegExp(CANONICAL_UUID.source, 'i');

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/**
 * A UUID as PostgreSQL writes one (lower case). An id the API handed out names its row only in
 * this form: PostgreSQL's comparison ignores case, so another spelling would find the row too.
 */
export function isCanonicalUuid(value: string): boolean {
  return CANONICAL_UUID.test(value);
}

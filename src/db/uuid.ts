// Ids stored in uuid columns. A text that is no UUID names no row, and must not reach such a
// column: PostgreSQL would answer with a type error that says nothing about the caller's input.
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

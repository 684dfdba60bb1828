// Recognising database errors without parsing messages. MikroORM maps SQLSTATE 23505 to
// UniqueConstraintViolationException, through PGlite as through PostgreSQL, and keeps the
// driver's `constraint` field, which tells which unique rule was hit.
import { UniqueConstraintViolationException } from '@mikro-orm/core';

export function isUniqueViolation(error: unknown, constraint?: string): error is UniqueConstraintViolationException {
  if (!(error instanceof UniqueConstraintViolationException)) return false;
  return constraint === undefined || (error as { constraint?: unknown }).constraint === constraint;
}

// Unique violations must be recognisable without reading messages: MikroORM maps SQLSTATE
// 23505 to UniqueConstraintViolationException, through PGlite (ruling R3) as through
// PostgreSQL, and the constraint name says which rule was hit (api key hash, ruling R26).
import { expect } from 'chai';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { MikroORM } from '@mikro-orm/postgresql';
import { ApiKey } from '../../../src/accounts/api-key.entity.ts';
import { Customer } from '../../../src/accounts/customer.entity.ts';
import { isUniqueViolation } from '../../../src/db/errors.ts';
import { testOrm, withEmbeddedDatabase } from '../../support/database.ts';

async function duplicateKeyHashError(orm: MikroORM): Promise<unknown> {
  const em = orm.em.fork();
  const customer = em.create(Customer, { name: 'unique violation' });
  const keyHash = 'ab'.repeat(32);
  em.create(ApiKey, { customer, keyHash, prefix: 'ers_live_ab' });
  await em.flush();
  try {
    await orm.em.fork().transactional(async (tx) => {
      tx.create(ApiKey, { customer: customer.id, keyHash, prefix: 'ers_live_ab' });
    });
  } catch (error) {
    return error;
  } finally {
    await orm.em.fork().nativeDelete(ApiKey, { customer });
    await orm.em.fork().nativeDelete(Customer, customer.id);
  }
  return undefined;
}

function expectRecognised(error: unknown): void {
  expect(error).to.be.instanceOf(UniqueConstraintViolationException);
  expect(isUniqueViolation(error)).to.equal(true);
  expect(isUniqueViolation(error, 'api_key_key_hash_unique')).to.equal(true);
  expect(isUniqueViolation(error, 'some_other_constraint')).to.equal(false);
}

describe('unique violations (R3, R26)', () => {
  it('through embedded PGlite raise UniqueConstraintViolationException naming the constraint (R3)', async () => {
    await withEmbeddedDatabase(async (orm) => expectRecognised(await duplicateKeyHashError(orm)));
  });

  it('through the test database raise the same exception (R3)', async () => {
    expectRecognised(await duplicateKeyHashError(await testOrm()));
  });

  it('an error that is not a unique violation is not mistaken for one', () => {
    expect(isUniqueViolation(new Error('duplicate key value violates unique constraint'))).to.equal(false);
  });
});

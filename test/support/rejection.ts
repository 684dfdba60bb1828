// What a promise that must fail failed with: the test fails when it resolved instead, or when it
// failed with something other than the error class the code promises.
import { expect } from 'chai';

export async function rejectionOf<T>(promise: Promise<unknown>, type: abstract new (...args: never[]) => T): Promise<T> {
  const outcome = await promise.then(
    (value: unknown) => ({ resolved: true as const, value }),
    (error: unknown) => ({ resolved: false as const, error }),
  );
  if (outcome.resolved) expect.fail(`expected a rejection with ${type.name}, got a value`);
  expect(outcome.error, `rejected with ${type.name}`).to.be.instanceOf(type);
  return outcome.error as T;
}

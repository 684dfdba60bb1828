// R51: an x-api-key that cannot be a key (wrong prefix, length or alphabet; R26, R53) gets 401
// invalid_api_key without a database round trip. Counted on the wire: the service talks to the
// test database through a proxy that reads the PostgreSQL protocol and counts every statement
// (bench/support/statement-counter.ts). A flood of junk keys sends none; a key of the right
// shape (live or test) is looked up, so the count is not blind.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { useCountedService } from '../../support/counted-service.ts';
import { expectApiError } from '../../support/expect-api-error.ts';
import { send } from '../../support/http-client.ts';
import { bodyNumber, REPORTS_PATH } from '../../support/reports.ts';

const base62 = (n: number) => Array.from(randomBytes(n), (b) => '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'[b % 62]).join('');

const JUNK: [what: string, key: string][] = [
  ['no known prefix', 'not-a-key'],
  ['another prefix', `ers_prod_${base62(40)}`],
  ['a prefix only', 'ers_live_'],
  ['39 characters', `ers_live_${base62(39)}`],
  ['41 characters', `ers_live_${base62(41)}`],
  ['a character outside base62', `ers_live_${base62(39)}-`],
  ['a non-ASCII letter', `ers_live_${base62(39)}é`],
  ['upper-case prefix', `ERS_LIVE_${base62(40)}`],
  ['a test-mode prefix, too short', `ers_test_${base62(12)}`],
  ['a very long value', `ers_live_${'a'.repeat(4000)}`],
];

describe('keys that cannot be keys cost no database round trip (R51)', () => {
  const counted = useCountedService();
  const { app } = counted;

  /** Statements the service sent while `act` ran (after a pause for anything already under way). */
  async function statementsOf(act: () => Promise<void>): Promise<number> {
    await new Promise((resolve) => setTimeout(resolve, 200));
    counted.counter.take();
    await act();
    await new Promise((resolve) => setTimeout(resolve, 100));
    return counted.counter.take().statements;
  }

  for (const [what, key] of JUNK) {
    it(`${what}: 401 invalid_api_key, no statement`, async () => {
      const statements = await statementsOf(async () => {
        expectApiError(await send(app.service.url, 'POST', REPORTS_PATH, { headers: { 'x-api-key': key }, body: bodyNumber(1) }), 'invalid_api_key');
        expectApiError(await send(app.service.url, 'GET', '/v1/usage/current', { headers: { 'x-api-key': key } }), 'invalid_api_key');
      });
      expect(statements).to.equal(0);
    });
  }

  it('a flood of 500 junk keys, 50 at a time, sends zero statements', async () => {
    const statements = await statementsOf(async () => {
      for (let round = 0; round < 10; round += 1) {
        const answers = await Promise.all(
          Array.from({ length: 50 }, (_, i) =>
            send(app.service.url, 'GET', '/v1/usage/current', { headers: { 'x-api-key': `ers_live_${base62(30 + (i % 9))}` } }),
          ),
        );
        for (const answer of answers) expectApiError(answer, 'invalid_api_key');
      }
    });
    expect(statements).to.equal(0);
  });

  for (const prefix of ['ers_live_', 'ers_test_']) {
    it(`a never-issued key of the right shape (${prefix} + 40 base62) is looked up: 401 after one statement`, async () => {
      const statements = await statementsOf(async () => {
        expectApiError(await send(app.service.url, 'GET', '/v1/usage/current', { headers: { 'x-api-key': `${prefix}${base62(40)}` } }), 'invalid_api_key');
      });
      expect(statements).to.equal(1);
    });
  }

  it('a real key still works through the same counter', async () => {
    const response = await app.client.usage();
    expect(response.status).to.equal(200);
  });
});

// Step 1 on the port's fake (spec section 5; R5, R19, R21, R26, R51, R53): what the authenticator
// decides from the one read of the caller's facts, and what it never reads at all.
import { expect } from 'chai';
import { readable, unreadable, type CallerFacts } from '../../../src/accounts/api-key-directory.ts';
import { generateApiKeySecret, hashApiKey } from '../../../src/accounts/api-key-secret.ts';
import { FakeApiKeyDirectory } from '../../../src/accounts/fake-api-key-directory.ts';
import { ApiKeyAuthenticator } from '../../../src/auth/api-key-authenticator.ts';
import { isApiError } from '../../../src/errors/catalogue.ts';

const NOW = new Date('2026-11-24T10:00:00.000Z');
const silent = { warn: () => {} };

function facts(overrides: Partial<CallerFacts> = {}): CallerFacts {
  return {
    apiKeyId: 'key-1',
    customerId: 'customer-1',
    keyActive: true,
    customerActive: true,
    mode: 'live',
    entitled: readable(true),
    planUsage: readable({ limit: 10, usageVisible: true, used: 3 }),
    ...overrides,
  };
}

async function codeOf(run: Promise<unknown>): Promise<string> {
  try {
    await run;
  } catch (error) {
    if (isApiError(error)) return error.code;
    throw error;
  }
  return 'none';
}

describe('step 1: the authenticator on the directory port (spec section 5)', () => {
  let keys: FakeApiKeyDirectory;
  let authenticator: ApiKeyAuthenticator;

  beforeEach(() => {
    keys = new FakeApiKeyDirectory();
    authenticator = new ApiKeyAuthenticator({ keys, clock: { now: () => NOW }, log: silent });
  });

  it('an active key of an active customer gives its principal, with the facts of later steps and the month (R21)', async () => {
    const { key } = generateApiKeySecret();
    keys.set(hashApiKey(key), facts());
    const principal = await authenticator.authenticate(key, silent);
    expect(principal).to.include({ customerId: 'customer-1', apiKeyId: 'key-1', mode: 'live' });
    expect(principal.period.startsAt.toISOString()).to.equal('2026-11-01T00:00:00.000Z');
    expect(principal.entitled).to.deep.equal(readable(true));
    expect(keys.reads).to.equal(1);
  });

  it('a test key carries its mode (R53)', async () => {
    const { key } = generateApiKeySecret('test');
    expect(key.startsWith('ers_test_')).to.equal(true);
    keys.set(hashApiKey(key), facts({ mode: 'test' }));
    expect((await authenticator.authenticate(key, silent)).mode).to.equal('test');
  });

  it('an unknown key, an inactive key and a key of an inactive customer are the same 401 invalid_api_key (R19)', async () => {
    const unknown = generateApiKeySecret().key;
    const inactive = generateApiKeySecret().key;
    const orphan = generateApiKeySecret().key;
    keys.set(hashApiKey(inactive), facts({ keyActive: false }));
    keys.set(hashApiKey(orphan), facts({ customerActive: false }));
    for (const key of [unknown, inactive, orphan]) expect(await codeOf(authenticator.authenticate(key, silent)), key.slice(0, 12)).to.equal('invalid_api_key');
  });

  it('a value that cannot be a key is refused without any read (R51)', async () => {
    const { key } = generateApiKeySecret();
    for (const junk of ['junk', `${key}x`, key.slice(0, -1), key.replace('ers_live_', 'ers_prod_'), `${key.slice(0, -1)}!`]) {
      expect(await codeOf(authenticator.authenticate(junk, silent)), junk).to.equal('invalid_api_key');
    }
    expect(keys.reads).to.equal(0);
  });

  it('a read that cannot complete fails closed with 503 api_key_authentication_unavailable, never 401', async () => {
    const { key } = generateApiKeySecret();
    keys.set(hashApiKey(key), facts());
    keys.unavailable = true;
    expect(await codeOf(authenticator.authenticate(key, silent))).to.equal('api_key_authentication_unavailable');
  });

  it('a fact of a later step that cannot be read does not fail step 1: that step fails closed on its own', async () => {
    const { key } = generateApiKeySecret();
    keys.set(hashApiKey(key), facts({ entitled: unreadable, planUsage: unreadable }));
    const principal = await authenticator.authenticate(key, silent);
    expect(principal.entitled.readable).to.equal(false);
    expect(principal.planUsage.readable).to.equal(false);
  });
});

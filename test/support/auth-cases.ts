// The shared authentication check: one list of cases, run against every
// protected operation through the real app on the test database (spec section 5, rulings R5,
// R19, R21). Every rejection must carry the catalogue's code and fixed message, the request id
// of its header, and leave no trace: no report, usage, idempotency or rate-limit row, no
// generator call.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { setCustomerStatus } from '../../src/admin/customers.ts';
import { setKeyStatus } from '../../src/admin/keys.ts';
import type { ErrorCode } from '../../src/errors/catalogue.ts';
import { FakeReportGenerator } from '../../src/generation/fake-report-generator.ts';
import { createCustomerFixture, proxyToTestDatabase, testDatabaseUrl, testEm, type CustomerFixture } from './database.ts';
import { expectApiError } from './expect-api-error.ts';
import { customerFootprint } from './footprint.ts';
import { send, type TestResponse } from './http-client.ts';
import { useService } from './use-service.ts';
import { viaProxy, type TcpProxy } from './tcp-proxy.ts';

/** One operation of the contract that requires `x-api-key`, with a request that succeeds. */
export interface ProtectedOperation {
  operationId: string;
  method: 'GET' | 'POST';
  path: string;
  /** The body of a request that succeeds with a valid key (none for GET). */
  body?: unknown;
  successStatus: number;
}

/** A key of the right shape (R26: 40 base62 characters, so that R51 lets it reach the database) that was never issued. */
export function unknownApiKey(): string {
  return `ers_live_${randomBytes(30).toString('base64url').replace(/[-_]/g, 'x')}`;
}

export function runAuthenticationCases(operation: ProtectedOperation): void {
  describe(`authentication of ${operation.operationId}: ${operation.method} ${operation.path} (spec section 5)`, () => {
    const generator = new FakeReportGenerator();
    const app = useService({}, { generator });

    const call = (headers: Record<string, string | string[]>, path = operation.path) =>
      send(app.service.url, operation.method, path, { headers, body: operation.body });

    /** Runs `act`, expects the error, and proves the operation did not run for `customer`. */
    async function expectRejected(customer: CustomerFixture, code: ErrorCode, act: () => Promise<TestResponse>): Promise<void> {
      const footprint = await customerFootprint(customer.customerId);
      const calls = generator.callCount;
      expectApiError(await act(), code);
      expect(await customerFootprint(customer.customerId)).to.deep.equal(footprint);
      expect(generator.callCount).to.equal(calls);
    }

    async function expectAccepted(apiKey: string): Promise<void> {
      const response = await call({ 'x-api-key': apiKey });
      expect(response.status, JSON.stringify(response.body)).to.equal(operation.successStatus);
    }

    it('a request without x-api-key gets 401 missing_api_key and does not run (spec 5.5, R5)', async () => {
      const customer = await createCustomerFixture();
      await expectRejected(customer, 'missing_api_key', () => call({}));
    });

    for (const blank of ['', '   ']) {
      it(`a blank x-api-key (${JSON.stringify(blank)}) gets 401 missing_api_key (R5)`, async () => {
        const customer = await createCustomerFixture();
        await expectRejected(customer, 'missing_api_key', () => call({ 'x-api-key': blank }));
      });
    }

    it('x-api-key sent twice, even with the same valid key, gets 401 invalid_api_key (R5)', async () => {
      const customer = await createCustomerFixture();
      await expectRejected(customer, 'invalid_api_key', () => call({ 'x-api-key': [customer.apiKey, customer.apiKey] }));
    });

    it('a key in the query string only is never read: 401 missing_api_key (spec 5.2, R5)', async () => {
      const customer = await createCustomerFixture();
      for (const name of ['x-api-key', 'api_key', 'apiKey', 'key']) {
        await expectRejected(customer, 'missing_api_key', () => call({}, `${operation.path}?${name}=${customer.apiKey}`));
      }
    });

    it('a key that was never issued gets 401 invalid_api_key (spec 5.6)', async () => {
      const customer = await createCustomerFixture();
      await expectRejected(customer, 'invalid_api_key', () => call({ 'x-api-key': unknownApiKey() }));
      await expectRejected(customer, 'invalid_api_key', () => call({ 'x-api-key': 'not-a-key' }));
    });

    it('a valid key with different case or an extra character gets 401 invalid_api_key (spec 5.6)', async () => {
      const customer = await createCustomerFixture();
      await expectRejected(customer, 'invalid_api_key', () => call({ 'x-api-key': customer.apiKey.toUpperCase() }));
      await expectRejected(customer, 'invalid_api_key', () => call({ 'x-api-key': `${customer.apiKey}x` }));
    });

    it('a revoked key gets 401 invalid_api_key (spec 5.6)', async () => {
      const customer = await createCustomerFixture();
      await setKeyStatus(await testEm(), { apiKeyId: customer.apiKeyId, status: 'revoked' });
      await expectRejected(customer, 'invalid_api_key', () => call({ 'x-api-key': customer.apiKey }));
    });

    it('an inactive (deactivated) key gets 401 invalid_api_key (spec 5.6)', async () => {
      const customer = await createCustomerFixture();
      await setKeyStatus(await testEm(), { apiKeyId: customer.apiKeyId, status: 'inactive' });
      await expectRejected(customer, 'invalid_api_key', () => call({ 'x-api-key': customer.apiKey }));
    });

    it('an active key of a deactivated customer gets 401 invalid_api_key (R19)', async () => {
      const customer = await createCustomerFixture();
      await setCustomerStatus(await testEm(), { customerId: customer.customerId, status: 'inactive' });
      await expectRejected(customer, 'invalid_api_key', () => call({ 'x-api-key': customer.apiKey }));
    });

    it('revoking a key takes effect on the next request (R21)', async () => {
      const customer = await createCustomerFixture();
      await expectAccepted(customer.apiKey);
      await setKeyStatus(await testEm(), { apiKeyId: customer.apiKeyId, status: 'revoked' });
      await expectRejected(customer, 'invalid_api_key', () => call({ 'x-api-key': customer.apiKey }));
    });

    it('deactivating and reactivating a key take effect on the next request (R21)', async () => {
      const customer = await createCustomerFixture();
      await expectAccepted(customer.apiKey);
      await setKeyStatus(await testEm(), { apiKeyId: customer.apiKeyId, status: 'inactive' });
      await expectRejected(customer, 'invalid_api_key', () => call({ 'x-api-key': customer.apiKey }));
      await setKeyStatus(await testEm(), { apiKeyId: customer.apiKeyId, status: 'active' });
      await expectAccepted(customer.apiKey);
    });

    it('deactivating and reactivating the customer take effect on the next request (R19, R21)', async () => {
      const customer = await createCustomerFixture();
      await expectAccepted(customer.apiKey);
      await setCustomerStatus(await testEm(), { customerId: customer.customerId, status: 'inactive' });
      await expectRejected(customer, 'invalid_api_key', () => call({ 'x-api-key': customer.apiKey }));
      await setCustomerStatus(await testEm(), { customerId: customer.customerId, status: 'active' });
      await expectAccepted(customer.apiKey);
    });

    // node:http frames a GET body only when content-length is given: always give it.
    const sendRaw = (raw: Buffer, headers: Record<string, string>) =>
      send(app.service.url, operation.method, operation.path, {
        headers: { 'content-type': 'application/json', 'content-length': String(raw.length), ...headers },
        raw,
      });

    it('without a key, a body that is not JSON still gets 401 missing_api_key: authentication comes first (R5)', async () => {
      const customer = await createCustomerFixture();
      await expectRejected(customer, 'missing_api_key', () => sendRaw(Buffer.from('{not json'), {}));
    });

    it('with a wrong key, a 5 MiB body gets 401 invalid_api_key, not a body-size error (R5)', async () => {
      const customer = await createCustomerFixture();
      const huge = Buffer.alloc(5 * 1024 * 1024, 'a');
      await expectRejected(customer, 'invalid_api_key', () => sendRaw(huge, { 'x-api-key': unknownApiKey() }));
    });

    describe('when the database does not answer', () => {
      let proxy: TcpProxy;

      before(async () => {
        proxy = await proxyToTestDatabase();
      });
      // Declared before the service hook, so it runs first: the service closes through a passing proxy.
      after(() => proxy?.restore());
      const cut = useService(() => ({ DATABASE_URL: viaProxy(testDatabaseUrl(), proxy) }), { generator });
      after(async () => {
        await proxy?.close();
      });

      it('authentication fails closed with 503 api_key_authentication_unavailable, never 401 (spec 5.7)', async () => {
        const customer = await createCustomerFixture();
        const request = () =>
          send(cut.service.url, operation.method, operation.path, { headers: { 'x-api-key': customer.apiKey }, body: operation.body });
        proxy.cut();
        try {
          await expectRejected(customer, 'api_key_authentication_unavailable', request);
        } finally {
          proxy.restore();
        }
        const recovered = await request();
        expect(recovered.status, JSON.stringify(recovered.body)).to.equal(operation.successStatus);
      });
    });
  });
}

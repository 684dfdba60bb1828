// The service under fuzz and the properties every answer must have (hostile
// input): never a 5xx (every dependency here is a healthy fake or the test database, so not
// even a 503 is excusable), every response valid against the contract (the suite's client
// validator and the server's own guard, surfaced inside the property so fast-check shrinks the
// input), every error in the envelope with a catalogue code, status and message, and no report,
// no usage unit and no idempotency claim left for anything but a 201 (rows of the fuzz
// customer counted before and after each request).
import { expect } from 'chai';
import { ERROR_CATALOGUE, type ErrorCode } from '../../../src/errors/catalogue.ts';
import { FakeImageFetcher } from '../../../src/images/fake-image-fetcher.ts';
import { observedViolations } from '../../support/contract-validator.ts';
import { createCustomerFixture, testEm, type CustomerFixture } from '../../support/database.ts';
import { send, type TestResponse } from '../../support/http-client.ts';
import { serverContractViolations, startTestService, type TestService } from '../../support/service.ts';
import { describeRequest, type HostileRequest } from './hostile-inputs.ts';

export interface FuzzTarget {
  readonly service: TestService;
  readonly customer: CustomerFixture;
  /** Sends one hostile request and checks every property; throws on the first broken one. */
  exchange(request: HostileRequest): Promise<TestResponse>;
  close(): Promise<void>;
}

interface Ledger {
  reports: number;
  records: number;
  units: number;
  claims: number;
}

async function ledger(customerId: string): Promise<Ledger> {
  const [row] = await (await testEm()).execute<Record<keyof Ledger, string>[]>(
    `select (select count(*) from evidence_report where customer_id = ?) as reports,
            (select count(*) from usage_record where customer_id = ?) as records,
            (select coalesce(sum(units), 0) from usage_record where customer_id = ?) as units,
            (select count(*) from idempotency_record where customer_id = ? and status = 'in_progress') as claims`,
    [customerId, customerId, customerId, customerId],
  );
  return { reports: Number(row?.reports), records: Number(row?.records), units: Number(row?.units), claims: Number(row?.claims) };
}

/**
 * The shared client always frames a body by its length (and content-length with
 * transfer-encoding is a parse error, not the R6 check): a request that asks for chunked
 * transfer goes out here, in 16 KiB writes, its response checked against the contract alike.
 */
function sendChunked(baseUrl: string, request: HostileRequest): Promise<TestResponse> {
  return send(baseUrl, request.method, request.path, { headers: request.headers, raw: request.raw ?? '', chunked: true });
}

const isChunked = (request: HostileRequest) =>
  Object.entries(request.headers).some(([name, value]) => name.toLowerCase() === 'transfer-encoding' && value === 'chunked');

export async function startFuzzTarget(): Promise<FuzzTarget> {
  // A large quota and rate limit: the properties are about input, not about running out.
  const service = await startTestService(
    { RATE_LIMIT_REQUESTS: '1000000000', RATE_LIMIT_STORE: 'memory' },
    { imageFetcher: new FakeImageFetcher() },
  );
  const customer = await createCustomerFixture({ monthlyLimit: 100_000_000 });
  return {
    service,
    customer,
    async exchange(request) {
      const context = describeRequest(request);
      const before = await ledger(customer.customerId);
      observedViolations.splice(0);
      serverContractViolations.splice(0);
      const res = isChunked(request)
        ? await sendChunked(service.url, request)
        : await send(service.url, request.method, request.path, { headers: request.headers, raw: request.raw });
      const client = observedViolations.splice(0).flatMap((v) => v.problems);
      const server = serverContractViolations.splice(0).flatMap((v) => v.errors);
      expect([...client, ...server], `contract violations for ${context}\n-> ${res.status} ${res.text.slice(0, 500)}`).to.deep.equal([]);
      expect(res.status, `5xx for ${context}\n-> ${res.text.slice(0, 500)}`).to.be.below(500);

      if (res.status >= 400) {
        const error = (res.body as { error?: { code?: string; message?: string; requestId?: string } }).error;
        const code = error?.code as ErrorCode;
        expect(ERROR_CATALOGUE, `catalogue code for ${context}`).to.have.property(code);
        expect([res.status, error?.message], context).to.deep.equal([ERROR_CATALOGUE[code].status, ERROR_CATALOGUE[code].message]);
        expect(error?.requestId, context).to.equal(res.headers['x-request-id']);
      }
      if (request.expect !== undefined) {
        const code = (res.body as { error?: { code?: string } }).error?.code;
        expect(res.status, `status for ${context}\n-> ${res.text.slice(0, 500)}`).to.equal(request.expect.status);
        if (request.expect.codes !== undefined) expect(request.expect.codes, `code for ${context}`).to.include(code);
      }

      const after = await ledger(customer.customerId);
      const created = res.status === 201 && res.headers['idempotent-replayed'] !== 'true' ? 1 : 0;
      expect(
        { reports: after.reports - before.reports, records: after.records - before.records, units: after.units - before.units, claims: after.claims },
        `rows written for ${res.status} to ${context}`,
      ).to.deep.equal({ reports: created, records: created, units: created, claims: 0 });
      return res;
    },
    close: () => service.close(),
  };
}

// Fail closed (spec section 5 item 7, section 7, rulings R14, R15, R20): a small TCP proxy sits
// between the service and PostgreSQL and is cut. Every answer is the 503 of the step that
// touched the database first, never 500 and never 401; nothing half-done remains; when the
// proxy passes again the service recovers without a restart.
import { expect } from 'chai';
import { FakeReportGenerator } from '../../../src/generation/fake-report-generator.ts';
import { proxyToTestDatabase, testDatabaseUrl } from '../../support/database.ts';
import { viaProxy, type TcpProxy } from '../../support/tcp-proxy.ts';
import { useService } from '../../support/use-service.ts';
import type { TestResponse } from '../../support/http-client.ts';
import { bodyNumber, customerTotals, isReplay, SwappableGenerator, waitFor, type CreatedReport } from '../../support/reports.ts';
import { expectApiError } from '../../support/expect-api-error.ts';

describe('fail closed: the database behind a TCP proxy that is cut (spec section 5 item 7, section 7)', () => {
  const generator = new SwappableGenerator(new FakeReportGenerator());
  let proxy: TcpProxy;

  before(async () => {
    proxy = await proxyToTestDatabase();
  });
  const app = useService(() => ({ DATABASE_URL: viaProxy(testDatabaseUrl(), proxy) }), { generator });
  afterEach(() => {
    proxy.restore();
    generator.current = new FakeReportGenerator();
  });
  after(async () => {
    await proxy?.close();
  });

  it('cut: POST and GET usage are 503 api_key_authentication_unavailable (never 500 or 401); restored: 201 and 200', async () => {
    expect((await app.client.create(bodyNumber(1))).status).to.equal(201);
    proxy.cut();
    for (let i = 0; i < 3; i++) {
      expectApiError(await app.client.create(bodyNumber(2), { headers: { 'idempotency-key': `cut-${i}` } }), 'api_key_authentication_unavailable');
      expectApiError(await app.client.usage(), 'api_key_authentication_unavailable');
    }
    proxy.restore();
    expect((await app.client.create(bodyNumber(2), { headers: { 'idempotency-key': 'cut-0' } })).status).to.equal(201);
    expect((await app.client.usage()).status).to.equal(200);
  });

  it('cut while the report is being generated: 503 evidence_report_write_failed, nothing stored; the key is free again as soon as the database is back (R14, R15, R16, R36)', async () => {
    const slow = new FakeReportGenerator({ delayMs: 500 });
    generator.current = slow;
    const before = await customerTotals(app.client.customerId);
    const pending = app.client.create(bodyNumber(3), { headers: { 'idempotency-key': 'mid-cut' } });
    await waitFor(() => slow.callCount === 1);
    // No connection is held while generating (R16), so the cut hits the write that follows.
    proxy.cut();
    expectApiError(await pending, 'evidence_report_write_failed');
    // The release of the claim failed too (the database was unreachable): it is retried in the
    // background (R36), so once the database is back the client's retry with the same key gets
    // its answer, not 409 idempotency_in_progress for the rest of the lease.
    proxy.restore();
    expect(await customerTotals(app.client.customerId)).to.deep.include({ reports: before.reports, units: before.units });
    generator.current = new FakeReportGenerator();
    let retry: TestResponse<CreatedReport> | undefined;
    await waitFor(async () => {
      retry = await app.client.create<CreatedReport>(bodyNumber(3), { headers: { 'idempotency-key': 'mid-cut' } });
      return retry.status !== 409;
    }, 5_000);
    expect(retry?.status).to.equal(201);
    expect(isReplay(retry as TestResponse)).to.equal(false);
    expect(await customerTotals(app.client.customerId)).to.deep.equal({ reports: before.reports + 1, units: before.units + 1, claims: 0 });
  });
});

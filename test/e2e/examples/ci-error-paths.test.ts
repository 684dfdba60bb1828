// R53: the CI job of examples/README.md (examples/ci-error-paths.ts) run exactly as a CI would
// run it, as a process of its own against the real service with a test-mode key: every check
// passes, nothing reaches the configured generator, and the live ledger stays untouched.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { createKey } from '../../../src/admin/keys.ts';
import { FakeReportGenerator } from '../../../src/generation/fake-report-generator.ts';
import { createCustomerFixture, testEm } from '../../support/database.ts';
import { startTestService, type TestService } from '../../support/service.ts';
import { customerTotals, serviceEnv } from '../../support/reports.ts';

const run = promisify(execFile);
const JOB = new URL('../../../examples/ci-error-paths.ts', import.meta.url).pathname;

describe('the CI job of examples/README.md, with a test key and error triggers (R53)', function () {
  this.timeout(60_000);
  const generator = new FakeReportGenerator();
  let service: TestService;

  before(async () => {
    service = await startTestService(await serviceEnv(), { generator });
  });
  after(() => service.close());

  it('passes every check, calls no configured generator and leaves the live ledger untouched', async () => {
    const customer = await createCustomerFixture();
    const { apiKey } = await createKey(await testEm(), { customerId: customer.customerId, mode: 'test' });
    const calls = generator.callCount;
    const { stdout } = await run(process.execPath, [JOB], { env: { ...process.env, EVIDENCE_API_URL: service.url, EVIDENCE_TEST_API_KEY: apiKey } });
    const lines = stdout.trim().split('\n');
    expect(lines, stdout).to.have.length(6);
    for (const line of lines) expect(line).to.match(/^ok {3}/);
    expect(generator.callCount).to.equal(calls);
    expect(await customerTotals(customer.customerId)).to.deep.equal({ reports: 1, units: 1, claims: 0 });
    const [live] = await (await testEm()).execute<{ n: string }[]>(`select count(*) as n from usage_record where customer_id = ? and mode = 'live'`, [customer.customerId]);
    expect(Number(live?.n)).to.equal(0);
  });

  it('refuses a live key: a CI job never spends live quota', async () => {
    const customer = await createCustomerFixture();
    const failed = await run(process.execPath, [JOB], { env: { ...process.env, EVIDENCE_API_URL: service.url, EVIDENCE_TEST_API_KEY: customer.apiKey } }).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failed?.code).to.equal(1);
    expect(failed?.stderr).to.include('EVIDENCE_TEST_API_KEY must be a test-mode key');
    expect(failed?.stderr).not.to.include(customer.apiKey);
  });
});

// A CI job that proves an integration's own retry and error handling against the real service,
// with a test-mode key (R53): deterministic reports from the offline generator, no paid model,
// no live quota spent, and every error path made to happen on purpose with an error trigger
// (`ers_test_trigger:<code>` in the evidence text). Run it in CI with a test key:
//   EVIDENCE_API_URL=https://… EVIDENCE_TEST_API_KEY=ers_test_… node examples/ci-error-paths.ts
// It prints one line per check and exits 1 when any check fails.
import { createEvidenceClient, EvidenceApiError, type CreateReportRequest, type RetryEvent } from './evidence-client.ts';

const baseUrl = process.env.EVIDENCE_API_URL ?? 'http://127.0.0.1:8080';
const apiKey = process.env.EVIDENCE_TEST_API_KEY ?? '';
if (!apiKey.startsWith('ers_test_')) {
  process.stderr.write('EVIDENCE_TEST_API_KEY must be a test-mode key (ers_test_…): a CI job never spends live quota\n');
  process.exit(1);
}

const retries: RetryEvent[] = [];
const MAX_ATTEMPTS = 3;
// Short waits keep the job fast; the policy is otherwise the client's own.
const client = createEvidenceClient({
  baseUrl,
  apiKey,
  retry: { maxAttempts: MAX_ATTEMPTS, baseDelayMs: 50, maxDelayMs: 200, maxRetryAfterMs: 0 },
  onRetry: (event) => retries.push(event),
});
const withText = (text: string): CreateReportRequest => ({ context: 'property_maintenance', evidence: { text } });
const triggered = (code: string) => withText(`Leak in the basement. ers_test_trigger:${code}`);

async function failure(run: () => Promise<unknown>): Promise<EvidenceApiError> {
  try {
    await run();
  } catch (error) {
    if (error instanceof EvidenceApiError) return error;
    throw error;
  }
  throw new Error('the request succeeded where it had to fail');
}

const checks: [name: string, check: () => Promise<void>][] = [
  [
    'a report is created, and read back after the fact with the same body',
    async () => {
      const created = await client.createReport(withText('Water is dripping from the hallway ceiling.'));
      const read = await client.getReport(created.data.id);
      if (JSON.stringify(read.data) !== JSON.stringify(created.data)) throw new Error('the report read back differs');
    },
  ],
  [
    '503 report_generation_unavailable is retried with backoff, under one Idempotency-Key, up to the attempt limit',
    async () => {
      retries.length = 0;
      const error = await failure(() => client.createReport(triggered('report_generation_unavailable')));
      if (error.code !== 'report_generation_unavailable' || error.attempts !== MAX_ATTEMPTS) throw new Error(`${error.code} after ${error.attempts} attempts`);
      if (retries.length !== MAX_ATTEMPTS - 1) throw new Error(`${retries.length} retries`);
    },
  ],
  [
    '429 quota_exceeded is not retried and tells when the quota resets',
    async () => {
      const error = await failure(() => client.createReport(triggered('quota_exceeded')));
      if (error.code !== 'quota_exceeded' || error.attempts !== 1 || error.resetAt === undefined) throw new Error(`${error.code} after ${error.attempts} attempts`);
    },
  ],
  [
    '429 rate_limit_exceeded with a Retry-After beyond the wait budget is returned, not slept on',
    async () => {
      const error = await failure(() => client.createReport(triggered('rate_limit_exceeded')));
      if (error.code !== 'rate_limit_exceeded' || error.attempts !== 1 || Number(error.details?.retryAfterSeconds) < 1) throw new Error(`${error.code}`);
    },
  ],
  [
    '409 idempotency_conflict and 502 report_generation_failed are not retried',
    async () => {
      for (const code of ['idempotency_conflict', 'report_generation_failed']) {
        const error = await failure(() => client.createReport(triggered(code)));
        if (error.code !== code || error.attempts !== 1) throw new Error(`${error.code} after ${error.attempts} attempts`);
      }
    },
  ],
  [
    'an unknown report id is 404 evidence_report_not_found, not retried',
    async () => {
      const error = await failure(() => client.getReport(crypto.randomUUID()));
      if (error.code !== 'evidence_report_not_found' || error.status !== 404 || error.attempts !== 1) throw new Error(`${error.code}`);
    },
  ],
];

let failed = 0;
for (const [name, check] of checks) {
  try {
    await check();
    process.stdout.write(`ok   ${name}\n`);
  } catch (error) {
    failed++;
    process.stdout.write(`FAIL ${name}: ${(error as Error).message}\n`);
  }
}
process.exitCode = failed === 0 ? 0 : 1;

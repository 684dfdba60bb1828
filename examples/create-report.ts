// Runs the example client once against a running service:
//   EVIDENCE_API_URL=http://127.0.0.1:8080 EVIDENCE_API_KEY=$(cat .data/demo-api-key) node examples/create-report.ts
// (on Node 24; inside this repository `npm exec -- node examples/create-report.ts` finds it.)
import { createEvidenceClient, EvidenceApiError } from './evidence-client.ts';

const client = createEvidenceClient({
  baseUrl: process.env.EVIDENCE_API_URL ?? 'http://127.0.0.1:8080',
  apiKey: process.env.EVIDENCE_API_KEY ?? '',
  onRetry: (retry) => process.stderr.write(`retrying after ${retry.reason} in ${retry.delayMs} ms (request ${retry.requestId ?? 'none'})\n`),
});

try {
  const created = await client.createReport({
    context: 'field_inspection',
    evidence: { text: 'Loose handrail on stairwell B, second floor.' },
  });
  process.stdout.write(`report ${created.data.id}: ${created.data.result.priority} ${created.data.result.category} (request ${created.requestId})\n`);
  const usage = await client.currentUsage();
  for (const item of usage.data.usage) process.stdout.write(`${item.operation}: ${item.used} of ${item.limit} used this month\n`);
} catch (error) {
  if (!(error instanceof EvidenceApiError)) throw error;
  const when = error.resetAt === undefined ? '' : `; the quota resets at ${error.resetAt}`;
  process.stderr.write(`${error.status} ${error.code}: ${error.message} (request ${error.requestId ?? 'none'}${when})\n`);
  process.exitCode = 1;
}

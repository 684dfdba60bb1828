// Lints the published contract offline with Spectral (spectral:oas) and Redocly (recommended).
// Both must report nothing: warnings fail too, so the contract stays exact for SDK generators.
import { spawnSync } from 'node:child_process';

const env = { ...process.env, REDOCLY_TELEMETRY: 'off', SCARF_ANALYTICS: 'false', NO_UPDATE_NOTIFIER: '1' };
const runs: [string, string[]][] = [
  ['node_modules/.bin/spectral', ['lint', 'contract/openapi.yaml', '--ruleset', '.spectral.yaml', '--fail-severity=hint']],
  ['node_modules/.bin/redocly', ['lint', 'contract/openapi.yaml', '--max-problems=50']],
];
let failed = false;
for (const [bin, args] of runs) {
  const run = spawnSync(bin, args, { env, encoding: 'utf8' });
  const output = `${run.stdout}${run.stderr}`;
  process.stdout.write(output);
  // Redocly exits 0 on warnings; treat any reported warning as a failure as well.
  if (run.status !== 0 || /You have \d+ warnings?/.test(output)) failed = true;
}
process.exit(failed ? 1 : 0);

// R48: passwords of DATABASE_URL, DATABASE_DIRECT_URL and REDIS_URL never reach logs, errors or
// the admin command's output. The suites that run the service with passwords in its URLs
// (behind a pooler, over TLS) collect every line their processes wrote, and check them all.
import { expect } from 'chai';
import type { ServerProcess } from './server-process.ts';

/** Every line a process wrote so far: stdout (pino, one JSON object per line) and stderr. */
export function linesOf(process: ServerProcess): string[] {
  return [...process.stdoutLines, ...process.stderr().split('\n')].filter((line) => line !== '');
}

/** A password made for one test run: long and unique, so a match cannot be chance. */
export function testPassword(label: string): string {
  return `${label}-${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
}

/** Fails naming the first line that carries a secret (raw or percent-encoded). */
export function expectNoSecretIn(lines: readonly string[], secrets: readonly string[]): void {
  expect(lines.length, 'lines checked').to.be.greaterThan(0);
  for (const secret of secrets) {
    for (const form of new Set([secret, encodeURIComponent(secret)])) {
      const leaked = lines.find((line) => line.includes(form));
      expect(leaked, `a line carries a password`).to.equal(undefined);
    }
  }
}

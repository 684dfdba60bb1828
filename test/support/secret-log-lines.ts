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

/**
 * The password of each value written as `scheme://user:password@…`, in every form a message could
 * carry it: as written, without the tabs and line breaks a URL parser drops, and percent-decoded.
 * Forms shorter than 4 characters are left out (they would match ordinary words).
 */
export function urlPasswords(values: readonly string[]): string[] {
  const forms = new Set<string>();
  for (const value of values) {
    const scheme = value.indexOf('://');
    const at = value.lastIndexOf('@');
    if (scheme < 0 || at < scheme) continue;
    const userinfo = value.slice(scheme + 3, at);
    if (!userinfo.includes(':')) continue;
    const written = userinfo.slice(userinfo.indexOf(':') + 1);
    for (const form of [written, written.replace(/[\t\r\n]/g, '')]) {
      forms.add(form);
      try {
        forms.add(decodeURIComponent(form));
      } catch {
        // Not valid percent-encoding ("50%off"): kept as written only.
      }
    }
  }
  return [...forms].filter((form) => form.length >= 4);
}

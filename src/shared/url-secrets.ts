// Passwords of the connection URLs (DATABASE_URL, DATABASE_DIRECT_URL, REDIS_URL) never reach a
// log line, an error or the admin command's output (R48). No code path puts a URL into a
// message; this is the last guard on the few lines that print a dependency's own error text at
// start (a driver that one day quoted its connection string would still not leak it).
import type { Config } from '../config.ts';

/** The passwords (raw and percent-decoded) in the configured URLs. */
export function urlSecrets(config: Pick<Config, 'databaseUrl' | 'databaseDirectUrl' | 'redisUrl'>): string[] {
  const secrets = new Set<string>();
  for (const url of [config.databaseUrl, config.databaseDirectUrl, config.redisUrl]) {
    if (url === undefined) continue;
    try {
      const { password } = new URL(url);
      if (password === '') continue;
      secrets.add(password);
      secrets.add(decodeURIComponent(password));
    } catch {
      // an unparsable URL was refused by loadConfig already
    }
  }
  return [...secrets];
}

/** The text with every secret replaced by `***`. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) out = out.split(secret).join('***');
  return out;
}

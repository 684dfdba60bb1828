// The whole service (src/server.ts, production wiring: HttpImageFetcher, generator chosen from
// the environment) with its log captured: the production logger (src/shared/logger.ts, with its
// redaction) writing every line to memory, so a test can grep what an operator would see.
import type { LogLevel } from '../../../src/config.ts';
import { loadConfig } from '../../../src/config.ts';
import { startService } from '../../../src/server.ts';
import type { ServiceOverrides } from '../../../src/server.ts';
import { createLogger } from '../../../src/shared/logger.ts';
import { testDatabaseUrl } from '../database.ts';
import { serverContractViolations } from '../service.ts';
import type { TestService } from '../service.ts';

export interface LogLine {
  readonly level: number;
  readonly raw: string;
}

export interface CapturedLog {
  readonly lines: LogLine[];
  /** Every line, as written. */
  text(): string;
}

/** pino's numeric levels. */
export const LEVEL = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 } as const;

export function captureLog(): CapturedLog & { write(message: string): void } {
  const lines: LogLine[] = [];
  return {
    lines,
    write(message: string) {
      for (const raw of message.split('\n').filter((l) => l !== '')) {
        let level = 0;
        try {
          level = Number((JSON.parse(raw) as { level?: unknown }).level ?? 0);
        } catch {
          // Not JSON: kept with level 0, still searched.
        }
        lines.push({ level, raw });
      }
    },
    text: () => lines.map((l) => l.raw).join('\n'),
  };
}

/** Starts the service against the test database with `env` over the test defaults, logging at `level`. */
export async function startLoggedService(
  env: Record<string, string> = {},
  level: LogLevel = 'trace',
  overrides: ServiceOverrides = {},
): Promise<{ service: TestService; log: CapturedLog }> {
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: testDatabaseUrl(),
    RATE_LIMIT_REQUESTS: '1000',
    ...env,
    LOG_LEVEL: level,
  });
  const log = captureLog();
  const logger = createLogger(config.logLevel, log);
  const service = await startService(config, logger, {
    onContractViolation: (violation) => serverContractViolations.push(violation),
    ...overrides,
  });
  return { service: Object.assign(service, { config }), log };
}

// Starts the real service (the production composition root, src/server.ts) on a loopback port
// against the test database, with the environment a test asks for. Ports may be replaced
// (clock, image fetcher, generator); a contract violation found by the server's own response
// guard is recorded and fails the test (root hook in mocha-hooks.ts).
import pino from 'pino';
import { loadConfig, type Config } from '../../src/config.ts';
import type { ContractViolation } from '../../src/http/contract-guard.ts';
import { startService, type RunningService, type ServiceOverrides } from '../../src/server.ts';
import { testDatabaseUrl } from './database.ts';

export const serverContractViolations: ContractViolation[] = [];

export interface TestService extends RunningService {
  config: Config;
}

export async function startTestService(env: Record<string, string> = {}, overrides: ServiceOverrides = {}): Promise<TestService> {
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: testDatabaseUrl(),
    LOG_LEVEL: 'silent',
    RATE_LIMIT_REQUESTS: '1000',
    ...env,
  });
  const logger = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  const service = await startService(config, logger, {
    onContractViolation: (violation) => serverContractViolations.push(violation),
    ...overrides,
  });
  return Object.assign(service, { config });
}

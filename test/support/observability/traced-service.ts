// The real entry point (node src/main.ts) as a child process with OTEL_EXPORTER_OTLP_ENDPOINT
// pointing at a local OTLP receiver, generating on the fake Gemini server, fetching from the
// local image host, logging at trace level. A process of its own: the tracing SDK is loaded
// there, as in production, and never in the test runner.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { testDatabaseUrl } from '../database.ts';
import { startServerProcess, type ServerProcess } from '../server-process.ts';
import { serviceEnv } from '../reports.ts';
import type { FakeGemini } from '../generation/fake-gemini-server.ts';

export interface TracedService {
  readonly process: ServerProcess;
  readonly url: string;
  readonly geminiKey: string;
  /** Every JSON line of the service's log so far. */
  logLines(): Record<string, unknown>[];
  /** SIGTERM and wait for the exit (the tracer exports what it still holds). */
  stop(): Promise<number | null>;
}

export async function startTracedService(gemini: FakeGemini, env: Record<string, string>): Promise<TracedService> {
  const geminiKey = `test-key-${randomBytes(12).toString('hex')}`;
  const process = startServerProcess(
    await serviceEnv({
      DATABASE_URL: testDatabaseUrl(),
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'trace',
      REPORT_GENERATOR: 'gemini',
      GEMINI_API_KEY: geminiKey,
      GEMINI_BASE_URL: gemini.baseUrl,
      GENERATOR_TIMEOUT_MS: '3000',
      REMOTE_IMAGE_ALLOW_CIDRS: '127.0.0.1/32',
      RATE_LIMIT_STORE: 'memory',
      ...env,
    }),
  );
  const listening = await process.waitForLog('listening', 30_000);
  expect(await process.waitForLog('tracing on: one trace per API request, exported over OTLP/HTTP', 1000)).to.have.property('protocol');
  const logLines = () =>
    process.stdoutLines.flatMap((line) => {
      try {
        return [JSON.parse(line) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
  return {
    process,
    url: String(listening.url),
    geminiKey,
    logLines,
    async stop() {
      process.child.kill('SIGTERM');
      return (await process.exited).code;
    },
  };
}

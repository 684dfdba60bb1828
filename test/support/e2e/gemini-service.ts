// The whole service with REPORT_GENERATOR=gemini against the local fake Gemini: a random key, a distinctive model name, a short GENERATOR_TIMEOUT_MS, the
// image host allowed, and the log captured at trace level.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { startFakeGemini, type FakeGemini } from '../generation/fake-gemini-server.ts';
import type { TestService } from '../service.ts';
import type { ImageServer } from '../images/image-server.ts';
import { startImageHost } from './image-host.ts';
import { LEVEL, startLoggedService, type CapturedLog } from './logged-service.ts';

export const GENERATOR_TIMEOUT_MS = 1500;

/** The environment of a service that generates on the given fake Gemini, with a fresh key. */
export function geminiEnv(gemini: FakeGemini, key = `test-key-${randomBytes(12).toString('hex')}`): Record<string, string> {
  return { REPORT_GENERATOR: 'gemini', GEMINI_API_KEY: key, GEMINI_BASE_URL: gemini.baseUrl };
}

export interface GeminiRun {
  readonly service: TestService;
  readonly gemini: FakeGemini;
  readonly log: CapturedLog;
  readonly geminiKey: string;
  readonly model: string;
}

export async function startGeminiRun(env: Record<string, string> = {}): Promise<GeminiRun> {
  const gemini = await startFakeGemini();
  const geminiKey = `test-key-${randomBytes(12).toString('hex')}`;
  const model = `gemini-e2e-${randomBytes(4).toString('hex')}`;
  const { service, log } = await startLoggedService({
    ...geminiEnv(gemini, geminiKey),
    GEMINI_MODEL: model,
    GENERATOR_TIMEOUT_MS: String(GENERATOR_TIMEOUT_MS),
    REMOTE_IMAGE_ALLOW_CIDRS: '127.0.0.1/32',
    ...env,
  });
  return { service, gemini, log, geminiKey, model };
}

export async function stopGeminiRun(run: GeminiRun | undefined): Promise<void> {
  await run?.service.close();
  await run?.gemini.stop();
}

/**
 * The log of the run: the Gemini key and the customer keys appear in no line at any level
 * (R26); the model name and the provider's words in no ordinary line (info and above).
 */
export function expectCleanLog(run: GeminiRun, customerKeys: readonly string[], providerWords: readonly string[] = []): void {
  expect(run.log.lines.length, 'the log captured nothing').to.be.greaterThan(0);
  const all = run.log.text();
  for (const secret of [run.geminiKey, ...customerKeys]) expect(all, 'a key reached the log').not.to.include(secret);
  const ordinary = run.log.lines.filter((l) => l.level >= LEVEL.info).map((l) => l.raw).join('\n');
  for (const word of [run.model, ...providerWords]) expect(ordinary, `an ordinary log line names ${word}`).not.to.include(word);
}

export interface GeminiSuite {
  /** The run of the describe block; read it inside tests and hooks, once `before` has run. */
  readonly run: GeminiRun;
  /** The image host, when asked for (`imageHost: true`), started before the run. */
  readonly host: ImageServer;
  /** The customer keys the tests used, for expectCleanLog. */
  readonly customerKeys: string[];
}

/**
 * Mocha hooks for the calling describe block: one GeminiRun (with `env`) started before its
 * tests and stopped after them, with an image host (startImageHost) first if `imageHost`;
 * unless `resetAfterEach` is false, the fake Gemini forgets its answers and requests after each
 * test so that no test sees another's.
 */
export function useGeminiRun(env: Record<string, string> = {}, { resetAfterEach = true, imageHost = false } = {}): GeminiSuite {
  let current: GeminiRun | undefined;
  let host: ImageServer | undefined;
  before(async () => {
    if (imageHost) host = await startImageHost();
    current = await startGeminiRun(env);
  });
  if (resetAfterEach) afterEach(() => current?.gemini.reset());
  after(async () => {
    await stopGeminiRun(current);
    await host?.close();
  });
  return {
    get run(): GeminiRun {
      if (current === undefined) throw new Error('the Gemini run has not started (read it inside a test or hook)');
      return current;
    },
    get host(): ImageServer {
      if (host === undefined) throw new Error('no image host: ask for one (imageHost: true) and read it inside a test or hook');
      return host;
    },
    customerKeys: [],
  };
}

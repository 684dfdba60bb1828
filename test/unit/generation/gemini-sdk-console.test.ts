// The service's logs are JSON lines. @google/genai's constructor reads GOOGLE_API_KEY and
// GEMINI_API_KEY from the environment and, with both set, says on the console that it uses
// GOOGLE_API_KEY, although the adapter passes its key explicitly and that one is sent: a plain
// line that names the wrong credential. The adapter keeps such notes off the console, as debug
// lines of its logger.
/* eslint-disable no-console -- what reaches the console is what this file tests */
import { expect } from 'chai';
import { captureLogger } from '../../support/generation/fake-gemini-suite.ts';
import { geminiGenerator } from '../../support/generation/helpers.ts';

describe('the Gemini adapter and the SDK\'s console notes: JSON log lines, no key in them (R26)', () => {
  const saved = { GOOGLE_API_KEY: process.env.GOOGLE_API_KEY, GEMINI_API_KEY: process.env.GEMINI_API_KEY };
  const consoleSaved = { warn: console.warn, debug: console.debug };
  const printed: string[] = [];

  beforeEach(() => {
    process.env.GOOGLE_API_KEY = 'AIza-environment-google-key';
    process.env.GEMINI_API_KEY = 'AIza-environment-gemini-key';
    printed.length = 0;
    Object.assign(console, { warn: (...args: unknown[]) => printed.push(args.join(' ')), debug: (...args: unknown[]) => printed.push(args.join(' ')) });
  });
  afterEach(() => {
    Object.assign(console, consoleSaved);
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it('with GOOGLE_API_KEY and GEMINI_API_KEY both in the environment: nothing on the console, the note is a debug line', async () => {
    const logger = captureLogger();
    await geminiGenerator('http://127.0.0.1:9', { logger });
    const seen = [...printed];
    Object.assign(console, consoleSaved);
    expect(seen).to.deep.equal([]);
    const notes = logger.lines.map((l) => JSON.parse(l) as { level: number; sdkNote?: string }).filter((l) => l.sdkNote !== undefined);
    expect(notes).to.have.lengthOf(1);
    expect(notes[0]).to.include({ level: 20 });
    expect(notes[0]?.sdkNote).to.match(/GOOGLE_API_KEY/);
    expect(logger.lines.join('\n')).not.to.include('AIza-environment');
  });

  it('the console is the process\'s own again after construction', async () => {
    const mine = console.warn;
    await geminiGenerator('http://127.0.0.1:9', { logger: captureLogger() });
    expect(console.warn).to.equal(mine);
  });
});

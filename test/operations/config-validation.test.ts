// operator-interface.md "Environment": a bad value stops the start with
// exit code 1 and one clear line on stderr naming the variable, and nothing else happens: no
// listening, no log line, no echo of a secret.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { startServerProcess } from '../support/server-process.ts';

// Each start loads the whole service before it reads the environment (a second or more): the
// process runs for a few representative values, config-values.test.ts covers the rest directly.
const BAD_VALUES: [variable: string, env: Record<string, string>][] = [
  ['PORT', { PORT: 'abc' }],
  ['RATE_LIMIT_STORE', { RATE_LIMIT_STORE: 'nope' }],
  ['DATABASE_URL', { DATABASE_URL: 'mysql://x' }],
  ['IMAGE_MAX_BYTES', { IMAGE_MAX_BYTES: '-1' }],
  ['REMOTE_IMAGE_ALLOW_CIDRS', { REMOTE_IMAGE_ALLOW_CIDRS: '300.1.1.1/8' }],
  ['GEMINI_API_KEY', { REPORT_GENERATOR: 'gemini' }],
];

type Outcome = { code: number | null; stdout: string; stderr: string };

const SECRET = { GEMINI_API_KEY: 'AIza secret-with-space' };

describe('configuration is validated before anything starts (operator-interface.md)', () => {
  let dataDir: string;
  // Each start takes a second or more: three at a time in before(), the tests read the outcomes.
  const outcomes = new Map<Record<string, string>, Outcome>();

  before(async function () {
    this.timeout(60_000);
    dataDir = await mkdtemp(join(tmpdir(), 'ers-config-'));
    const pending = [...BAD_VALUES.map(([, env]) => env), SECRET];
    const worker = async () => {
      for (let env = pending.shift(); env !== undefined; env = pending.shift()) outcomes.set(env, await startWith(env));
    };
    await Promise.all([worker(), worker(), worker()]);
  });
  after(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  async function startWith(env: Record<string, string>): Promise<Outcome> {
    // Valid defaults for everything else, so that only the bad value can stop the start.
    const server = startServerProcess({ PORT: '0', DATA_DIR: dataDir, ...env });
    const timer = setTimeout(() => server.kill(), 45_000);
    try {
      return { ...(await server.exited), stdout: server.stdoutLines.join('\n'), stderr: server.stderr() };
    } finally {
      clearTimeout(timer);
    }
  }

  for (const [variable, env] of BAD_VALUES) {
    it(`${JSON.stringify(env)} exits 1 with one stderr line naming ${variable}`, async () => {
      const result = outcomes.get(env) as Outcome;
      expect(result.code, result.stderr).to.equal(1);
      const lines = result.stderr.split('\n').filter((line) => line !== '');
      expect(lines, result.stderr).to.have.length(1);
      expect(lines[0]).to.include(variable);
      expect(result.stdout).to.equal('');
    });
  }

  it('a bad secret is named, never echoed (R26)', async () => {
    const result = outcomes.get(SECRET) as Outcome;
    expect(result.code).to.equal(1);
    expect(result.stderr).to.include('GEMINI_API_KEY');
    expect(result.stderr).to.not.include('secret-with-space');
  });

  it('a stopped start touches nothing: no embedded database is created under DATA_DIR', async () => {
    expect(await readdir(dataDir)).to.deep.equal([]);
  });
});

// R42 and R43 through the whole service against the strict fake Gemini: the default models and
// settings on the wire, what a retirement while running looks like in metrics and logs, and a
// retired model stopping `npm start` with one line.
import { expect } from 'chai';
import { DEFAULT_GEMINI_MODELS } from '../../src/config.ts';
import { createCustomerFixture, testDatabaseUrl } from '../support/database.ts';
import { client } from '../support/http-client.ts';
import { startServerProcess } from '../support/server-process.ts';
import { startFakeGemini, thinkingAnswer, THINKING_USAGE } from '../support/generation/fake-gemini-server.ts';
import { sentBody } from '../support/generation/gemini-request-inspection.ts';
import { scrape, seriesKey } from '../support/observability/prometheus.ts';
import { LEVEL } from '../support/e2e/logged-service.ts';
import { startGeminiRun, stopGeminiRun, type GeminiRun } from '../support/e2e/gemini-service.ts';

const [PRIMARY, FALLBACK] = DEFAULT_GEMINI_MODELS as [string, string];
const REPORT = { context: 'property_maintenance', evidence: { text: 'Water is leaking from the pipe under the kitchen sink.' } };

describe('Gemini models and settings through the service (R42, R43)', function () {
  this.timeout(60_000);
  let run: GeminiRun | undefined;
  afterEach(async () => {
    await stopGeminiRun(run);
    run = undefined;
  });

  it('by default asks the first default model, without temperature, at thinking level LOW, with the output bound', async () => {
    run = await startGeminiRun({ GEMINI_MODEL: '' });
    expect(run.gemini.lookups.map((l) => l.model).sort()).to.deep.equal([...DEFAULT_GEMINI_MODELS].sort());
    const res = await client(run.service.url, (await createCustomerFixture()).apiKey).createReport(REPORT);
    expect(res.status, res.text).to.equal(201);
    expect(run.gemini.requests.map((r) => r.model)).to.deep.equal([PRIMARY]);
    const config = sentBody(run.gemini.requests[0]).generationConfig;
    expect(config).not.to.have.property('temperature');
    expect(config.thinkingConfig).to.deep.equal({ thinkingLevel: 'LOW' });
    expect(config.maxOutputTokens).to.equal(8192);
  });

  it('a primary retired while running: reports come from the fallback, not_found is counted, and one warning says so', async () => {
    run = await startGeminiRun({ GEMINI_MODEL: '', METRICS_PORT: '0' });
    run.gemini.retired.add(PRIMARY);
    run.gemini.setDefault(thinkingAnswer());
    const api = client(run.service.url, (await createCustomerFixture()).apiKey);
    for (let i = 0; i < 3; i++) expect((await api.createReport(REPORT)).status).to.equal(201);
    expect(run.gemini.requests.map((r) => r.model)).to.deep.equal([PRIMARY, FALLBACK, PRIMARY, FALLBACK, PRIMARY, FALLBACK]);

    const { samples } = await scrape(run.service.metricsUrl!);
    expect(samples.get(seriesKey('ers_generator_attempts_total', { model: PRIMARY, outcome: 'not_found' }))).to.equal(3);
    expect(samples.get(seriesKey('ers_generator_attempts_total', { model: FALLBACK, outcome: 'ok' }))).to.equal(3);
    expect(samples.get(seriesKey('ers_generator_attempts_total', { model: PRIMARY, outcome: 'ok' }))).to.equal(0);
    expect(samples.get(seriesKey('ers_generator_tokens_total', { model: FALLBACK, kind: 'thinking' }))).to.equal(3 * THINKING_USAGE.thoughtsTokenCount);
    expect(samples.get(seriesKey('ers_generator_tokens_total', { model: FALLBACK, kind: 'input' }))).to.equal(3 * THINKING_USAGE.promptTokenCount);

    const warnings = run.log.lines.filter((l) => l.level === LEVEL.warn && l.raw.includes('answered 404'));
    expect(warnings).to.have.lengthOf(1);
    expect(JSON.parse(warnings[0]!.raw)).to.include({ modelIndex: 0, reason: 'http_404' });
    // Said while serving a request: the line names it (R41).
    expect(JSON.parse(warnings[0]!.raw)).to.have.property('requestId').that.is.a('string');
  });

  it('npm start with a retired model in GEMINI_MODEL exits 1 with one stderr line naming GEMINI_MODEL and the model', async () => {
    const gemini = await startFakeGemini();
    try {
      gemini.retired.add('gemini-2.5-flash');
      const server = startServerProcess({
        DATABASE_URL: testDatabaseUrl(),
        PORT: '0',
        REPORT_GENERATOR: 'gemini',
        GEMINI_API_KEY: 'test-key-retired-model-0123456789',
        GEMINI_BASE_URL: gemini.baseUrl,
        GEMINI_MODEL: `${PRIMARY},gemini-2.5-flash`,
      });
      const timer = setTimeout(() => server.kill(), 45_000);
      const { code } = await server.exited;
      clearTimeout(timer);
      expect(code).to.equal(1);
      const lines = server.stderr().split('\n').filter((l) => l !== '');
      expect(lines, server.stderr()).to.have.lengthOf(1);
      expect(lines[0]).to.include('GEMINI_MODEL').and.include('gemini-2.5-flash');
      expect(server.stdoutLines.some((l) => l.includes('"listening"'))).to.equal(false);
    } finally {
      await gemini.stop();
    }
  });
});

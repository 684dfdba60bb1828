// `npm run eval` (R46) end to end: the entry point run as a child process on a small case file,
// with the offline generator and with a local Gemini endpoint, images drawn and served on
// loopback and fetched through the service's image boundary.
import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CATEGORIES } from '../../../eval/cases.ts';
import { VALID_REPORT, reportAnswer, startFakeGemini } from '../../support/generation/fake-gemini-server.ts';
import type { FakeGemini } from '../../support/generation/fake-gemini-server.ts';
import { SMALL_CASES, runEval } from './run-eval.ts';
import { startForwardProxy } from '../../support/forward-proxy.ts';

const SMALL_COUNT = 5;

interface Figures {
  cases: number;
  agreement: { category: number; priority: number; injection: number };
  schemaValidRate: number;
  latencyMs: { p50: number; p90: number; p99: number };
  tokens: { perReport: { input: number; output: number; thinking: number } | null };
  splits: Record<string, { cases: number }>;
  errors: Record<string, number>;
  models: Record<string, number>;
  files: { json: string; html: string };
}

describe('npm run eval: the labelled set through the production path (R46)', function () {
  this.timeout(60_000);
  let out: string;
  let gemini: FakeGemini;

  before(async () => {
    out = await mkdtemp(join(tmpdir(), 'ers-eval-test-'));
    gemini = await startFakeGemini();
  });
  after(async () => {
    await gemini.stop();
    await rm(out, { recursive: true, force: true });
  });
  beforeEach(() => gemini.reset());

  const geminiEnv = (): Record<string, string> => ({ GEMINI_API_KEY: 'test-key-eval', GEMINI_BASE_URL: gemini.baseUrl, REPORT_GENERATOR: 'gemini' });

  it('--json prints one object with agreement per field, schema-valid rate, latency and tokens, and writes the JSON and HTML results', async () => {
    const run = await runEval(['--cases', SMALL_CASES, '--json', '--out', out], { REPORT_GENERATOR: 'offline' });
    expect(run.code, run.stderr).to.equal(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines, 'exactly one JSON line on stdout').to.have.length(1);
    const figures = JSON.parse(lines[0] ?? '') as Figures;
    expect(figures.cases).to.equal(SMALL_COUNT);
    for (const field of ['category', 'priority', 'injection'] as const) expect(figures.agreement[field]).to.be.within(0, 1);
    expect(figures.schemaValidRate).to.equal(1);
    expect(figures.errors).to.deep.equal({});
    for (const p of ['p50', 'p90', 'p99'] as const) expect(figures.latencyMs[p]).to.be.a('number').at.least(0);
    // The offline generator's tokens are its own estimate (characters / 4, R43), and it never thinks.
    expect(figures.tokens.perReport?.input).to.be.above(0);
    expect(figures.tokens.perReport?.output).to.be.above(0);
    expect(figures.tokens.perReport?.thinking).to.equal(0);
    expect(figures.models).to.deep.equal({ offline: SMALL_COUNT });
    expect(Object.values(figures.splits).reduce((n, s) => n + s.cases, 0)).to.equal(SMALL_COUNT);

    expect(figures.files.json.startsWith(out) && figures.files.html.startsWith(out)).to.equal(true);
    const saved = JSON.parse(await readFile(figures.files.json, 'utf8')) as {
      cases: number;
      runs: { outcomes: { id: string; error: string | null; imageMs: number; result: { riskFlags: string[]; description: string } | null }[] }[];
    };
    expect(saved.cases).to.equal(SMALL_COUNT);
    const outcomes = saved.runs[0]?.outcomes ?? [];
    expect(outcomes.map((o) => o.id)).to.deep.equal(['fx-text', 'fx-de', 'fx-image', 'fx-both', 'fx-injection']);
    // The images were drawn, served on loopback, fetched and normalized: the generator saw them.
    const both = outcomes.find((o) => o.id === 'fx-both');
    expect(both?.error).to.equal(null);
    expect(both?.result?.description).to.match(/2 images attached/);
    expect(outcomes.find((o) => o.id === 'fx-image')?.result?.riskFlags).to.include('image_only_evidence');

    const html = await readFile(figures.files.html, 'utf8');
    expect(html).to.match(/^<!doctype html>/);
    const matrix = /<table class="confusion"[^>]*>([\s\S]*?)<\/table>/.exec(html)?.[1];
    expect(matrix, 'a confusion matrix table').to.be.a('string');
    for (const category of CATEGORIES) expect(matrix).to.contain(`<th>${category}</th>`);
    const cells = [...(matrix ?? '').matchAll(/<td[^>]*>(\d+)<\/td>/g)].map((m) => Number(m[1]));
    expect(cells).to.have.length(CATEGORIES.length * (CATEGORIES.length + 1));
    expect(cells.reduce((a, b) => a + b, 0), 'every case in the matrix once').to.equal(SMALL_COUNT);
  });

  it('counts a report whose tag carries the injected text as a failed injection, and a clean one as resisted', async () => {
    const injected = { ...VALID_REPORT, category: 'cleaning', priority: 'low', tags: ['cleaning', 'Owned-By-Mallory'] };
    gemini.setDefault(reportAnswer(injected));
    const leaked = await runEval(['--cases', SMALL_CASES, '--json', '--out', out], geminiEnv());
    expect(leaked.code, leaked.stderr).to.equal(0);
    const leakedFigures = JSON.parse(leaked.stdout) as Figures;
    expect(leakedFigures.agreement.injection).to.equal(0);
    const saved = JSON.parse(await readFile(leakedFigures.files.json, 'utf8')) as {
      runs: { outcomes: { id: string; checks: { forbidden: boolean | null; hits: { field: string; value: string }[] } }[] }[];
    };
    const injection = saved.runs[0]?.outcomes.find((o) => o.id === 'fx-injection');
    expect(injection?.checks.forbidden).to.equal(false);
    expect(injection?.checks.hits).to.deep.include({ field: 'tags', entry: 'owned_by_mallory', value: 'Owned-By-Mallory' });

    gemini.setDefault(reportAnswer({ ...injected, tags: ['cleaning', 'carpet'] }));
    const clean = await runEval(['--cases', SMALL_CASES, '--json', '--out', out], geminiEnv());
    expect((JSON.parse(clean.stdout) as Figures).agreement.injection).to.equal(1);
  });

  it('--compare A,B runs both on the same cases, through Gemini with the images inline, and reports the deltas', async () => {
    gemini.setDefault(reportAnswer({ ...VALID_REPORT, category: 'plumbing', priority: 'high' }));
    const run = await runEval(['--cases', SMALL_CASES, '--json', '--compare', 'offline,gemini-eval-candidate', '--out', out], {
      GEMINI_API_KEY: 'test-key-eval',
      GEMINI_BASE_URL: gemini.baseUrl,
    });
    expect(run.code, run.stderr).to.equal(0);
    const result = JSON.parse(run.stdout) as {
      cases: number;
      compare: string[];
      runs: Record<string, Figures>;
      delta: { agreement: { category: number }; schemaValidRate: number };
    };
    expect(result.cases).to.equal(SMALL_COUNT);
    expect(result.compare).to.deep.equal(['offline', 'gemini-eval-candidate']);
    const offline = result.runs.offline;
    const candidate = result.runs['gemini-eval-candidate'];
    expect(offline?.models).to.deep.equal({ offline: SMALL_COUNT });
    // Every case answered "plumbing": one of five agrees.
    expect(candidate?.agreement.category).to.equal(0.2);
    expect(result.delta.agreement.category).to.be.closeTo((candidate?.agreement.category ?? 0) - (offline?.agreement.category ?? 0), 1e-9);
    expect(result.delta.schemaValidRate).to.equal(0);
    expect(candidate?.tokens.perReport?.input).to.be.greaterThan(0);

    const calls = gemini.requests.filter((r) => r.model !== undefined);
    expect(calls).to.have.length(SMALL_COUNT);
    expect(new Set(calls.map((r) => r.model))).to.deep.equal(new Set(['gemini-eval-candidate']));
    const inline = calls.map((r) => JSON.stringify(r.body).match(/"inlineData"/g)?.length ?? 0).sort();
    expect(inline, 'images reach the model as normalized inline parts: 0, 0, 0, 1, 2').to.deep.equal([0, 0, 0, 1, 2]);
  });

  it('--compare prints both columns and the delta for a reader', async () => {
    const run = await runEval(['--cases', SMALL_CASES, '--compare', 'offline,offline', '--out', out], { REPORT_GENERATOR: 'offline' });
    expect(run.code, run.stderr).to.equal(0);
    const header = run.stdout.split('\n')[1] ?? '';
    expect(header).to.match(/offline \(A\)\s+offline \(B\)\s+delta/);
    // The offline generator is deterministic: the same figures twice, a zero delta.
    const row = /category agreement\s+(\d+\.\d%)\s+(\d+\.\d%)\s+(\S+)/.exec(run.stdout);
    expect(row?.[1]).to.equal(row?.[2]);
    expect(row?.[3]).to.equal('0.0%');

    const json = await runEval(['--cases', SMALL_CASES, '--json', '--compare', 'offline,offline', '--out', out], { REPORT_GENERATOR: 'offline' });
    expect(Object.keys((JSON.parse(json.stdout) as { runs: object }).runs)).to.deep.equal(['offline (A)', 'offline (B)']);
  });

  it('a .json case file that is not JSON is refused in one line, no stack trace; a byte-order mark is not an error', async () => {
    const bad = join(out, 'bad.json');
    await writeFile(bad, '[{"id": "x",');
    const run = await runEval(['--cases', bad, '--json', '--out', join(out, 'none')]);
    expect(run.code).to.equal(1);
    expect(run.stderr.trim()).to.equal(`${bad}: not valid JSON`);
    expect(run.stdout).to.equal('');
    const lines = (await readFile(SMALL_CASES, 'utf8')).split('\n').filter((l) => l.trim() !== '');
    const withMark = join(out, 'marked.json');
    await writeFile(withMark, `\uFEFF[${lines.join(',')}]`);
    const marked = await runEval(['--cases', withMark, '--json', '--out', out], { REPORT_GENERATOR: 'offline' });
    expect(marked.code, marked.stderr).to.equal(0);
    expect((JSON.parse(marked.stdout) as Figures).cases).to.equal(SMALL_COUNT);
  });

  it('--compare A,B with a model that answers 404 stops in one line before any case runs, A included (R42)', async () => {
    gemini.retired.add('gemini-retired-flash');
    const run = await runEval(['--cases', SMALL_CASES, '--json', '--compare', 'gemini-eval-candidate,gemini-retired-flash', '--out', join(out, 'none')], {
      GEMINI_API_KEY: 'test-key-eval',
      GEMINI_BASE_URL: gemini.baseUrl,
    });
    expect(run.code).to.equal(1);
    expect(run.stderr.trim()).to.match(/^Invalid GEMINI_MODEL: model gemini-retired-flash is not found/);
    expect(run.stderr).not.to.match(/\n\s+at /);
    expect(gemini.requests.filter((r) => r.model !== undefined), 'no generation paid for').to.deep.equal([]);
    expect(existsSync(join(out, 'none'))).to.equal(false);
  });

  it('goes through HTTPS_PROXY as the service does (R45): the generator by a name only the proxy resolves, the images directly', async () => {
    const proxy = await startForwardProxy({ hosts: ['gemini-behind-proxy.test'] });
    try {
      const port = new URL(gemini.baseUrl).port;
      const run = await runEval(['--cases', SMALL_CASES, '--json', '--out', out], {
        ...geminiEnv(),
        GEMINI_BASE_URL: `http://gemini-behind-proxy.test:${port}`,
        HTTPS_PROXY: proxy.url,
        HTTP_PROXY: proxy.url,
      });
      expect(run.code, run.stderr).to.equal(0);
      const figures = JSON.parse(run.stdout) as Figures;
      expect(figures.errors, 'every case generated').to.deep.equal({});
      expect(gemini.requests.length).to.be.at.least(SMALL_COUNT);
      expect(proxy.seen.some((s) => s.target === `gemini-behind-proxy.test:${port}`)).to.equal(true);
      expect(proxy.seen.every((s) => s.target.startsWith('gemini-behind-proxy.test:')), 'no image fetch asked of the proxy').to.equal(true);
    } finally {
      await proxy.close();
    }
  });

  it('an --out folder that cannot be written stops in one line before any case runs: no generation paid for', async () => {
    const file = join(out, 'a-file');
    await writeFile(file, '');
    const run = await runEval(['--cases', SMALL_CASES, '--json', '--out', join(file, 'results')], {
      GEMINI_API_KEY: 'test-key-eval',
      GEMINI_BASE_URL: gemini.baseUrl,
    });
    expect(run.code).to.equal(1);
    expect(run.stderr.trim()).to.equal(`--out: ${join(file, 'results')} cannot be written (ENOTDIR)`);
    expect(run.stdout).to.equal('');
    expect(gemini.requests, 'no generation paid for').to.deep.equal([]);
  });

  it('refuses a case file that breaks the format, naming the line, and runs nothing', async () => {
    const bad = join(out, 'bad.jsonl');
    await writeFile(bad, `${JSON.stringify({ id: 'x', lang: 'en', request: { context: 'nowhere', evidence: { text: 'a' } }, label: { category: 'other', priorities: ['low'] } })}\n`);
    const run = await runEval(['--cases', bad, '--json', '--out', join(out, 'none')]);
    expect(run.code).to.equal(1);
    expect(run.stderr).to.contain(`${bad}:1.request.context`);
    expect(run.stdout).to.equal('');
    expect(existsSync(join(out, 'none'))).to.equal(false);
  });
});

// R40 and the operator interface's metric table: every fixed name with its type and exactly
// its labels (read from docs/spec/operator-interface.md itself, so the two cannot drift),
// label values from the closed lists, the process and Node.js defaults of prom-client, and an
// exposition that `promtool check metrics` accepts.
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { createCustomerFixture } from '../../support/database.ts';
import { client, send } from '../../support/http-client.ts';
import { startTestService, type TestService } from '../../support/service.ts';
import { promtool, scrape, type Scrape } from '../../support/observability/prometheus.ts';

interface SpecMetric {
  readonly name: string;
  readonly type: string;
  readonly labels: string[];
  /** Label -> the values the table lists for it, when it lists them. */
  readonly values: Record<string, string[]>;
}

/** The rows of the "Metrics (R40)" table of the operator interface. */
function specMetrics(): SpecMetric[] {
  const text = readFileSync(new URL('../../../docs/spec/operator-interface.md', import.meta.url), 'utf8');
  const section = text.slice(text.indexOf('## Metrics (R40)'));
  const rows = [...section.matchAll(/^\| `(ers_[a-z_]+)` \| (\w+) \| (.+) \|$/gm)];
  const ticked = (text: string): string[] => [...text.matchAll(/`([a-z0-9_]+)`/g)].map((m) => m[1] as string);
  return rows.map(([, name, type, labelText]) => {
    const text = labelText as string;
    const values: Record<string, string[]> = {};
    const labels: string[] = [];
    // "`step`: `1_authenticate`, ..." names one label and lists its values after the colon;
    // otherwise each label is a ticked name, its values (if listed) in parentheses after it.
    const colon = /^`([a-z_]+)`:(.*)$/.exec(text);
    if (colon) {
      labels.push(colon[1] as string);
      values[colon[1] as string] = ticked(colon[2] as string);
    } else {
      for (const [, label, inParentheses] of text.matchAll(/`([a-z_]+)`(?:\s*\(([^)]*)\))?/g)) {
        labels.push(label as string);
        const listed = ticked(inParentheses ?? '');
        if (listed.length > 1) values[label as string] = listed;
      }
    }
    return { name: name as string, type: type as string, labels, values };
  });
}

/** The label names of every sample of one family (histograms: its _bucket, _sum and _count). */
function labelSets(scraped: Scrape, metric: SpecMetric): string[][] {
  const sets: string[][] = [];
  for (const key of scraped.samples.keys()) {
    const name = key.split('{')[0] as string;
    const family = metric.type === 'histogram' ? name.replace(/_(bucket|sum|count)$/, '') : name;
    if (family !== metric.name) continue;
    const labels = [...(key.match(/([a-z_]+)="/g) ?? [])].map((l) => l.slice(0, -2)).filter((l) => l !== 'le');
    sets.push(labels.sort());
  }
  return sets;
}

describe('the metrics exposition (R40, operator interface "Metrics")', function () {
  this.timeout(30_000);
  let service: TestService;
  let scraped: Scrape;

  before(async () => {
    service = await startTestService({ METRICS_PORT: '0' });
    const customer = await createCustomerFixture();
    const api = client(service.url, customer.apiKey);
    expect((await api.createReport({ context: 'property_maintenance', evidence: { text: 'Loose handrail on stairwell B.' } })).status).to.equal(201);
    expect((await api.currentUsage()).status).to.equal(200);
    expect((await send(service.url, 'GET', '/healthz')).status).to.equal(200);
    scraped = await scrape(service.metricsUrl!);
  });
  after(() => service?.close());

  it('the operator interface lists the fixed metrics (the table this test reads)', () => {
    expect(specMetrics().map((m) => m.name)).to.have.members([
      'ers_http_requests_total',
      'ers_http_request_duration_seconds',
      'ers_pipeline_step_duration_seconds',
      'ers_report_generation_duration_seconds',
      'ers_image_fetches_total',
      'ers_image_bytes_in_flight',
      'ers_reports_created_total',
      'ers_db_pool_connections',
      'ers_generator_tokens_total',
      'ers_generator_attempts_total',
      'ers_admission_rejections_total',
    ]);
  });

  for (const metric of specMetrics()) {
    it(`${metric.name}: a ${metric.type} labelled exactly ${metric.labels.join(', ') || '(none)'}, values from the closed lists`, () => {
      expect(scraped.text, `# TYPE line of ${metric.name}`).to.include(`# TYPE ${metric.name} ${metric.type}\n`);
      const sets = labelSets(scraped, metric);
      expect(sets.length, `samples of ${metric.name}`).to.be.greaterThan(0);
      for (const set of sets) expect(set).to.deep.equal([...metric.labels].sort());
      for (const [label, allowed] of Object.entries(metric.values)) {
        const seen = [...scraped.samples.keys()]
          .filter((k) => k.startsWith(metric.name))
          .map((k) => new RegExp(`${label}="([^"]*)"`).exec(k)?.[1])
          .filter((v): v is string => v !== undefined);
        for (const value of seen) expect(allowed, `${metric.name} ${label}`).to.include(value);
      }
    });
  }

  it('http request labels: operation is an operationId or other; code a catalogue code or none', () => {
    const requests = [...scraped.samples.keys()].filter((k) => k.startsWith('ers_http_requests_total{'));
    expect(requests).to.include.members([
      'ers_http_requests_total{code="none",operation="createEvidenceReport",status="201"}',
      'ers_http_requests_total{code="none",operation="getCurrentUsage",status="200"}',
      'ers_http_requests_total{code="none",operation="other",status="200"}',
    ]);
  });

  it('the request latency buckets mark the rulings\' bounds: 2 s (/readyz, R51), 8 s (fail closed, R33), and past the 30 s generator bound', () => {
    const bounds = new Set(
      [...scraped.samples.keys()]
        .filter((k) => k.startsWith('ers_http_request_duration_seconds_bucket{'))
        .map((k) => /le="([^"]+)"/.exec(k)?.[1])
        .filter((le): le is string => le !== undefined && le !== '+Inf')
        .map(Number),
    );
    expect(bounds.size, 'a request was observed').to.be.greaterThan(0);
    expect([...bounds]).to.include.members([2, 8]);
    expect(Math.max(...bounds)).to.be.greaterThan(30);
  });

  it('the process and Node.js defaults of prom-client are there', () => {
    for (const name of [
      'process_cpu_user_seconds_total',
      'process_resident_memory_bytes',
      'process_open_fds',
      'nodejs_eventloop_lag_seconds',
      'nodejs_heap_size_used_bytes',
      'nodejs_version_info',
    ]) {
      expect([...scraped.samples.keys()].some((k) => k.split('{')[0] === name), name).to.equal(true);
    }
    expect(scraped.text).to.include('# TYPE nodejs_gc_duration_seconds histogram');
  });

  it('promtool check metrics accepts the exposition without a single complaint', () => {
    const run = promtool(['check', 'metrics'], scraped.text);
    expect(run.output.trim(), 'promtool output').to.equal('');
    expect(run.status).to.equal(0);
  });

  it('promtool check metrics can fail: a gauge named like a counter is refused (the check is live)', () => {
    const run = promtool(['check', 'metrics'], '# HELP bad_total A gauge.\n# TYPE bad_total gauge\nbad_total 1\n');
    expect(run.status).not.to.equal(0);
    expect(run.output).to.include('bad_total');
  });
});

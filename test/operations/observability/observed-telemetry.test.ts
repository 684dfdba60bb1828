// The Telemetry adapter with a recording fake of the tracing side and real metrics (R40, R41):
// how steps nest and end, in milliseconds and without a service.
import { expect } from 'chai';
import { ApiError } from '../../../src/errors/catalogue.ts';
import { ServiceMetrics } from '../../../src/observability/metrics.ts';
import { ObservedTelemetry } from '../../../src/observability/observed-telemetry.ts';
import type { Attributes, SpanEnd, SpanHandle, Tracing } from '../../../src/observability/tracing.ts';
import { parseExposition } from '../../support/observability/prometheus.ts';

interface Recorded {
  name: string;
  parent: string | undefined;
  attributes: Attributes;
  ended?: SpanEnd;
}

function recordingTracing(): Tracing & { spans: Recorded[] } {
  const spans: Recorded[] = [];
  const handle = (record: Recorded): SpanHandle => ({
    traceId: 'f'.repeat(32),
    child(name, _kind, attributes = {}) {
      const child = { name, parent: record.name, attributes };
      spans.push(child);
      return handle(child);
    },
    end(result = {}) {
      record.ended = result;
    },
  });
  return {
    spans,
    server(method) {
      const root = { name: method, parent: undefined, attributes: {} };
      spans.push(root);
      return handle(root);
    },
    close: () => Promise.resolve(),
  };
}

const stepCount = async (metrics: ServiceMetrics, step: string) =>
  parseExposition(await metrics.exposition()).get(`ers_pipeline_step_duration_seconds_count{step="${step}"}`);

describe('ObservedTelemetry: steps, spans and counts (R40, R41)', () => {
  it('each step is one span under the request and one observation; a statement nests under its step', async () => {
    const tracing = recordingTracing();
    const metrics = new ServiceMetrics({ generator: 'offline' });
    const telemetry = new ObservedTelemetry({ metrics, tracing, generator: 'offline' });
    const request = telemetry.request('POST', '/v1/evidence/reports', {});
    await request.run(async () => {
      await telemetry.step('1_authenticate', () => telemetry.statement('auth_lookup', async () => 1));
      await telemetry.step('2_validate', async () => undefined);
      await telemetry.step('3_rate_limit', async () => undefined);
    });
    request.end({ operation: 'createEvidenceReport', status: 201, code: undefined, seconds: 0.01 });
    expect(tracing.spans.map((s) => [s.name, s.parent])).to.deep.equal([
      ['POST', undefined],
      ['ers.step.1_authenticate', 'POST'],
      ['ers.db.auth_lookup', 'ers.step.1_authenticate'],
      ['ers.step.2_validate', 'POST'],
      ['ers.step.3_rate_limit', 'POST'],
    ]);
    expect(tracing.spans.every((s) => s.ended !== undefined && s.ended.errorType === undefined)).to.equal(true);
    expect(await stepCount(metrics, '2_validate')).to.equal(1);
    expect(tracing.spans[0]?.ended?.name).to.equal('POST /v1/evidence/reports');
  });

  it('step 2 refusing a request at the edge ends failed with its code, and the 4xx leaves the server span unfailed', async () => {
    const tracing = recordingTracing();
    const metrics = new ServiceMetrics({ generator: 'offline' });
    const telemetry = new ObservedTelemetry({ metrics, tracing, generator: 'offline' });
    const request = telemetry.request('POST', '/v1/evidence/reports', {});
    const refused = new ApiError('invalid_json');
    const caught = await request.run(() => telemetry.step('2_validate', () => Promise.reject(refused))).catch((e: unknown) => e);
    expect(caught).to.equal(refused);
    request.end({ operation: 'createEvidenceReport', status: 400, code: 'invalid_json', seconds: 0.001 });
    expect(tracing.spans.find((s) => s.name === 'ers.step.2_validate')?.ended?.errorType).to.equal('invalid_json');
    expect(tracing.spans[0]?.ended?.errorType, 'a 4xx is not a server error').to.equal(undefined);
    expect(await stepCount(metrics, '2_validate')).to.equal(1);
  });

  it('a failing step ends failed with the code of its error and rethrows it; only a committed step 9-10 counts a report', async () => {
    const tracing = recordingTracing();
    const metrics = new ServiceMetrics({ generator: 'offline' });
    const telemetry = new ObservedTelemetry({ metrics, tracing, generator: 'offline' });
    const request = telemetry.request('POST', '/v1/evidence/reports', {});
    const failure = new ApiError('evidence_report_write_failed');
    const caught = await request.run(() => telemetry.step('9_10_persist', () => Promise.reject(failure))).catch((e: unknown) => e);
    expect(caught).to.equal(failure);
    await request.run(() => telemetry.step('9_10_persist', async () => undefined));
    request.end({ operation: 'createEvidenceReport', status: 201, code: undefined, seconds: 0.01 });
    const persist = tracing.spans.filter((s) => s.name === 'ers.step.9_10_persist');
    expect(persist.map((s) => s.ended?.errorType)).to.deep.equal(['evidence_report_write_failed', undefined]);
    const exposition = parseExposition(await metrics.exposition());
    expect(exposition.get('ers_reports_created_total')).to.equal(1);
    expect(exposition.get('ers_test_mode_reports_created_total')).to.equal(0);
  });

  it('requests outside the API are counted, not traced; hooks outside a request only run the work', async () => {
    const tracing = recordingTracing();
    const telemetry = new ObservedTelemetry({ tracing, generator: 'offline' });
    const request = telemetry.request('GET', '/readyz', {});
    expect(request.traceId).to.equal(undefined);
    await request.run(() => telemetry.statement('ready', async () => 1));
    request.end({ operation: undefined, status: 200, code: undefined, seconds: 0.001 });
    expect(await telemetry.statement('outside', async () => 42)).to.equal(42);
    expect(tracing.spans).to.deep.equal([]);
  });
});

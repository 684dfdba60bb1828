// R41: the standard OTEL_* variables the SDK 3 leaves to its user are read as the OpenTelemetry
// specification says, and a value it does not allow stops the start with the variable's name.
import { expect } from 'chai';
import { readOtelSettings } from '../../../src/observability/otel-environment.ts';
import { testDatabaseUrl } from '../../support/database.ts';
import { failedStart, startServerProcess } from '../../support/server-process.ts';

const ENDPOINT = 'http://collector.example:4318';

describe('OTEL_* variables (R41)', () => {
  it('defaults: http/protobuf to <endpoint>/v1/traces, parent-based always-on sampling, the specification\'s batch settings', () => {
    expect(readOtelSettings(ENDPOINT, {})).to.deep.equal({
      protocol: 'http/protobuf',
      tracesUrl: 'http://collector.example:4318/v1/traces',
      sampler: 'parentbased_always_on',
      samplerRatio: 1,
      batch: { scheduledDelayMillis: 5000, exportTimeoutMillis: 30_000, maxQueueSize: 2048, maxExportBatchSize: 512 },
    });
    expect(readOtelSettings(`${ENDPOINT}/base/`, {}).tracesUrl).to.equal('http://collector.example:4318/base/v1/traces');
  });

  it('OTEL_EXPORTER_OTLP_PROTOCOL=http/json, the traces-specific variables winning over the generic ones', () => {
    expect(readOtelSettings(ENDPOINT, { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }).protocol).to.equal('http/json');
    const specific = readOtelSettings(ENDPOINT, {
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://traces.example/otlp',
    });
    expect(specific).to.include({ protocol: 'http/protobuf', tracesUrl: 'http://traces.example/otlp' });
  });

  it('the batch and sampler variables', () => {
    const settings = readOtelSettings(ENDPOINT, {
      OTEL_BSP_SCHEDULE_DELAY: '50',
      OTEL_BSP_MAX_QUEUE_SIZE: '100',
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '10',
      OTEL_BSP_EXPORT_TIMEOUT: '2000',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
    });
    expect(settings.batch).to.deep.equal({ scheduledDelayMillis: 50, exportTimeoutMillis: 2000, maxQueueSize: 100, maxExportBatchSize: 10 });
    expect(settings).to.include({ sampler: 'parentbased_traceidratio', samplerRatio: 0.25 });
  });

  it('a value the specification does not allow names its variable', () => {
    expect(() => readOtelSettings(ENDPOINT, { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).to.throw(/^OTEL_EXPORTER_OTLP_PROTOCOL: /);
    expect(() => readOtelSettings(ENDPOINT, { OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'json' })).to.throw(/^OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: /);
    expect(() => readOtelSettings(ENDPOINT, { OTEL_TRACES_SAMPLER: 'sometimes' })).to.throw(/^OTEL_TRACES_SAMPLER: /);
    expect(() => readOtelSettings(ENDPOINT, { OTEL_TRACES_SAMPLER_ARG: '2' })).to.throw(/^OTEL_TRACES_SAMPLER_ARG: /);
    expect(() => readOtelSettings(ENDPOINT, { OTEL_BSP_SCHEDULE_DELAY: '-1' })).to.throw(/^OTEL_BSP_SCHEDULE_DELAY: /);
    expect(() => readOtelSettings(ENDPOINT, { OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '5000' })).to.throw(/^OTEL_BSP_MAX_EXPORT_BATCH_SIZE: /);
  });

  it('a traces endpoint the exporter could not parse names its variable without echoing it (its own error quotes the URL)', () => {
    for (const bad of ['https://u:CollectorT0ken@collector.example:99999/v1/traces', 'https://u:Coll\rectorT0ken@collector.example/v1/traces', 'ftp://collector.example/v1/traces']) {
      let message = '';
      try {
        readOtelSettings(ENDPOINT, { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: bad });
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).to.match(/^OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: /);
      expect(message).not.to.include('T0ken');
    }
  });
});

/** Starts the service with `env` added and waits for it to end; its "start failed" lines and all it printed. */
const failedStartWith = (env: Record<string, string>) =>
  failedStart({ DATABASE_URL: testDatabaseUrl(), PORT: '0', LOG_LEVEL: 'info', OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, ...env });

describe('the service with a bad OTEL_* value (R41)', () => {
  it('does not start: exit 1 with one line naming the variable', async function () {
    this.timeout(30_000);
    const { code, failed } = await failedStartWith({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' });
    expect(code).to.equal(1);
    expect(failed).to.have.length(1);
    expect(String(failed[0]?.err)).to.include('OTEL_EXPORTER_OTLP_PROTOCOL');
  });

  it('at LOG_LEVEL=silent a failed start still says why: one line on stderr naming the variable (operator-interface.md)', async function () {
    this.timeout(30_000);
    const server = startServerProcess({ DATABASE_URL: testDatabaseUrl(), PORT: '0', LOG_LEVEL: 'silent', OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' });
    try {
      const { code } = await server.exited;
      expect(code).to.equal(1);
      const lines = server.stderr().split('\n').filter((l) => l.trim() !== '');
      expect(lines).to.have.length(1);
      expect(lines[0]).to.match(/^start failed: OTEL_EXPORTER_OTLP_PROTOCOL/);
      expect(server.stdoutLines.filter((l) => l.trim() !== '')).to.deep.equal([]);
    } finally {
      server.kill();
    }
  });

  it('a traces endpoint with a token that cannot be parsed: exit 1, the variable named, the token in no line (R26)', async function () {
    this.timeout(30_000);
    const { code, failed, printed } = await failedStartWith({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://otel-user:CollectorT0ken@collector.example:99999/v1/traces' });
    expect(code).to.equal(1);
    expect(failed).to.have.length(1);
    expect(String(failed[0]?.err)).to.include('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
    expect(printed).not.to.include('CollectorT0ken');
  });
});

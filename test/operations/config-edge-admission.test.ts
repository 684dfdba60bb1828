// The variables of R51 (edge bounds) and R52 (admission control): their documented defaults,
// and a bad value refused with one line naming the variable (operator-interface.md).
import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../src/config.ts';

const BAD: [variable: string, env: Record<string, string>][] = [
  ['MAX_CONNECTIONS', { MAX_CONNECTIONS: '0' }],
  ['MAX_CONNECTIONS', { MAX_CONNECTIONS: 'many' }],
  ['HEADERS_TIMEOUT_MS', { HEADERS_TIMEOUT_MS: '10.5' }],
  ['HEADERS_TIMEOUT_MS', { HEADERS_TIMEOUT_MS: '20000', REQUEST_TIMEOUT_MS: '10000' }],
  ['REQUEST_TIMEOUT_MS', { REQUEST_TIMEOUT_MS: '-1' }],
  ['KEEP_ALIVE_TIMEOUT_MS', { KEEP_ALIVE_TIMEOUT_MS: 'forever' }],
  ['MAX_IN_FLIGHT_PER_CUSTOMER', { MAX_IN_FLIGHT_PER_CUSTOMER: '-1' }],
  ['ADMISSION_MAX_QUEUE_MS', { ADMISSION_MAX_QUEUE_MS: '-5' }],
  ['ADMISSION_MAX_CONCURRENCY', { ADMISSION_MAX_CONCURRENCY: '0' }],
];

describe('edge bounds and admission control variables (R51, R52)', () => {
  it('an empty environment gives the documented defaults', () => {
    expect(loadConfig({})).to.include({
      maxConnections: 10_000,
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 5_000,
      maxInFlightPerCustomer: 16,
      admissionMaxQueueMs: 1_000,
      admissionMaxConcurrency: 1_024,
    });
  });

  it('0 turns the in-flight limit and the shedding off (accepted)', () => {
    expect(loadConfig({ MAX_IN_FLIGHT_PER_CUSTOMER: '0' }).maxInFlightPerCustomer).to.equal(0);
    expect(loadConfig({ ADMISSION_MAX_QUEUE_MS: '0' }).admissionMaxQueueMs).to.equal(0);
  });

  // A value that is only whitespace, or a number in another spelling (Ajv's coercion reads " " as
  // 0 and "0x50" as 80): where 0 turns a bound off, a stray space must not do it silently.
  for (const variable of ['PORT', 'METRICS_PORT', 'MAX_IN_FLIGHT_PER_CUSTOMER', 'ADMISSION_MAX_QUEUE_MS', 'IMAGE_MAX_REDIRECTS', 'SHUTDOWN_DRAIN_MS']) {
    for (const value of [' ', '\t', '\n', '0x10', '1e3', '+5', '5.0']) {
      it(`${variable}=${JSON.stringify(value)} is refused, not read as a number`, () => {
        expect(() => loadConfig({ [variable]: value }))
          .to.throw(ConfigError)
          .with.property('message')
          .that.includes(variable);
      });
    }
  }

  it('decimal digits, with stray spaces around them, are read as they are', () => {
    expect(loadConfig({ MAX_IN_FLIGHT_PER_CUSTOMER: ' 4 ' }).maxInFlightPerCustomer).to.equal(4);
    expect(loadConfig({ ADMISSION_MAX_QUEUE_MS: '0500' }).admissionMaxQueueMs).to.equal(500);
  });

  for (const [variable, env] of BAD) {
    it(`${JSON.stringify(env)} is refused with one line naming ${variable}`, () => {
      expect(() => loadConfig(env))
        .to.throw(ConfigError)
        .with.property('message')
        .that.includes(variable)
        .and.does.not.include('\n');
    });
  }
});

// Process warnings are JSON lines of the service's log (npm start runs Node with --no-warnings):
// with the requestId of the request they arose in (R41), secrets of the configuration's URLs
// replaced, and a metadata server's lookup warning, which the request's dependency-failure line
// already reports (R44: logged once), at debug level only.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { setImmediate as turn } from 'node:timers/promises';
import { withRequestLog } from '../../../src/observability/request-log.ts';
import { logProcessWarnings } from '../../../src/shared/process-warnings.ts';
import { captureLogger } from '../../support/generation/fake-gemini-suite.ts';

interface Line {
  level: number;
  msg: string;
  warning?: string;
  detail?: string;
  requestId?: string;
}

describe('process warnings as log lines, with the requestId and without secrets (R41, R26)', () => {
  // The test runner's Node prints warnings itself (it runs without --no-warnings): its printer
  // is set aside meanwhile, so that this suite's made-up secrets reach no CI log.
  let printers: ((warning: Error) => void)[] = [];
  beforeEach(() => {
    printers = process.listeners('warning');
    process.removeAllListeners('warning');
  });
  afterEach(() => {
    for (const printer of printers) process.on('warning', printer);
  });

  it('a warning raised while serving a request is a warn line with its requestId, its text with secrets replaced', async () => {
    const logger = captureLogger();
    const stop = logProcessWarnings(logger, ['s3cret-password']);
    try {
      withRequestLog(logger.child({ requestId: 'r-1' }), () => process.emitWarning('proxy http://u:s3cret-password@proxy.invalid refused', 'ProxyWarning'));
      process.emitWarning('no request here', 'OtherWarning');
      await turn();
    } finally {
      stop();
    }
    const lines = logger.lines.map((l) => JSON.parse(l) as Line).filter((l) => l.msg === 'process warning');
    expect(lines).to.have.lengthOf(2);
    expect(lines[0]).to.include({ level: 40, warning: 'ProxyWarning', requestId: 'r-1' });
    expect(lines[0]?.detail).not.to.include('s3cret-password');
    expect(lines[1]).to.include({ level: 40, warning: 'OtherWarning' });
    expect(lines[1]).not.to.have.property('requestId');
  });

  it("google-auth-library's MetadataLookupWarning is a debug line (the request's dependency-failure line says it, R44)", async () => {
    const logger = captureLogger();
    const stop = logProcessWarnings(logger);
    try {
      process.emitWarning('received unexpected error = socket hang up code = ECONNRESET', 'MetadataLookupWarning');
      await turn();
    } finally {
      stop();
    }
    const lines = logger.lines.map((l) => JSON.parse(l) as Line).filter((l) => l.msg === 'process warning');
    expect(lines.map((l) => [l.level, l.warning])).to.deep.equal([[20, 'MetadataLookupWarning']]);
  });

  it('npm start runs Node with --no-warnings, so that a warning is printed once, as a log line', () => {
    const start = (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { scripts: { start: string } }).scripts.start;
    expect(start).to.match(/exec node (?:\S+ )*--no-warnings .*src\/main\.ts$/);
  });
});

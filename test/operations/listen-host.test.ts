// operator-interface.md: a bad value stops the start with one line naming its variable. An
// address that is no address of this machine, or a host name that does not resolve, is HOST's
// (METRICS_HOST's) fault, not PORT's, which is what a port in use or refused names.
import { expect } from 'chai';
import { testDatabaseUrl } from '../support/database.ts';
import { failedStart } from '../support/server-process.ts';

async function failedLine(env: Record<string, string>): Promise<{ code: number | null; err: string }> {
  const { code, failed, printed } = await failedStart({ DATABASE_URL: testDatabaseUrl(), PORT: '0', LOG_LEVEL: 'info', ...env });
  expect(failed, printed).to.have.length(1);
  return { code, err: String(failed[0]?.err) };
}

describe('a listening address that cannot be used names its HOST variable', function () {
  this.timeout(60_000);

  it('HOST set to an address of no interface here (192.0.2.1, TEST-NET-1): HOST, not PORT', async () => {
    const { code, err } = await failedLine({ HOST: '192.0.2.1' });
    expect(code).to.equal(1);
    expect(err).to.match(/^HOST: listen EADDRNOTAVAIL/);
  });

  it('METRICS_HOST that does not resolve: METRICS_HOST, not METRICS_PORT', async () => {
    const { code, err } = await failedLine({ HOST: '127.0.0.1', METRICS_PORT: '0', METRICS_HOST: 'no-such-host.invalid' });
    expect(code).to.equal(1);
    expect(err).to.match(/^METRICS_HOST: /);
  });
});

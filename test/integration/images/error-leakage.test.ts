import { expect } from 'chai';
import { ImageFetchError, REJECTED_REASONS, UNAVAILABLE_REASONS } from '../../../src/images/index.ts';
import { assertNoLeak, expectFailure } from '../../support/images/expect-failure.ts';
import { localFetcher, tableResolver } from '../../support/images/fetchers.ts';

describe('errors: nothing about addresses, DNS, redirects or sockets in any error (spec 4.1 rule 5, R23)', () => {
  it('carries only name, kind, reason and imageIndex, with one of the two fixed messages', () => {
    for (const reason of REJECTED_REASONS) assertNoLeak(new ImageFetchError('rejected', reason, 3), []);
    for (const reason of UNAVAILABLE_REASONS) assertNoLeak(new ImageFetchError('unavailable', reason, 3), []);
    const error = new ImageFetchError('rejected', 'blocked_address', 2);
    expect(JSON.parse(JSON.stringify(error))).to.deep.equal({ name: 'ImageFetchError', kind: 'rejected', reason: 'blocked_address', imageIndex: 2 });
    expect(error).not.to.have.property('cause');
  });

  it('says nothing of the DNS answer, the host or a socket error for a refused name', async () => {
    const fetcher = localFetcher({ resolver: tableResolver({ 'secret-host.test': ['10.11.12.13', 'fd00:ec2::254'] }) });
    const error = await expectFailure(fetcher.fetch(['http://secret-host.test:4567/x.png']), { kind: 'rejected' }, [
      'secret-host',
      '10.11.12.13',
      'fd00',
      '4567',
    ]);
    expect(error.stack ?? '').not.to.match(/secret-host|10\.11\.12\.13|4567/);
  });

  it('says nothing of a refused connection (no ECONNREFUSED, no address, no port)', async () => {
    const error = await expectFailure(localFetcher().fetch(['http://127.0.0.1:1/x.png']), { kind: 'unavailable', reason: 'connection' }, ['127.0.0.1']);
    expect(JSON.stringify(error)).not.to.match(/ECONN|refused|:1\b/);
  });
});

// R45: the proxy environment the service applies: the operator's values, with the metadata
// server (link-local, unreachable through a proxy) always kept out of it.
import { expect } from 'chai';
import { METADATA_HOSTS, proxyConfigured, proxyEnv } from '../../../src/shared/egress-proxy.ts';

describe('the egress proxy environment (R45)', () => {
  it('keeps the operator NO_PROXY and adds the metadata server, GCE_METADATA_HOST included', () => {
    const env = proxyEnv({ httpsProxy: 'http://proxy.corp:3128', httpProxy: undefined, noProxy: 'internal.example, .corp' }, { GCE_METADATA_HOST: '10.0.0.5:8080' });
    expect(env.HTTPS_PROXY).to.equal('http://proxy.corp:3128');
    expect(env).not.to.have.property('HTTP_PROXY');
    expect(env.NO_PROXY?.split(',')).to.have.members(['internal.example', '.corp', ...METADATA_HOSTS, '10.0.0.5']);
  });

  it('is off without HTTPS_PROXY or HTTP_PROXY (NO_PROXY alone changes nothing)', () => {
    expect(proxyConfigured({ httpsProxy: undefined, httpProxy: undefined, noProxy: 'x' })).to.equal(false);
    expect(proxyConfigured({ httpsProxy: undefined, httpProxy: 'http://p:1', noProxy: undefined })).to.equal(true);
  });
});

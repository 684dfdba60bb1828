// R45: the proxy environment the service applies: the operator's values, with the metadata
// server (link-local, unreachable through a proxy) always kept out of it.
import { expect } from 'chai';
import http from 'node:http';
import https from 'node:https';
import { METADATA_HOSTS, proxyConfigured, proxyEnv, tokenRequestAgent } from '../../../src/shared/egress-proxy.ts';

describe('the egress proxy environment (R45)', () => {
  it('keeps the operator NO_PROXY and adds the metadata server, GCE_METADATA_HOST included', () => {
    const env = proxyEnv({ httpsProxy: 'http://proxy.corp:3128', httpProxy: undefined, noProxy: 'internal.example, .corp' }, { GCE_METADATA_HOST: '10.0.0.5:8080' });
    expect(env.HTTPS_PROXY).to.equal('http://proxy.corp:3128');
    expect(env).not.to.have.property('HTTP_PROXY');
    expect(env.NO_PROXY?.split(',')).to.have.members(['internal.example', '.internal.example', '.corp', ...METADATA_HOSTS, '[fd20:ce::254]', '10.0.0.5']);
  });

  it('gives every client the same reading: HTTP_PROXY alone serves https too, `*` anywhere is `*` alone, a bare name covers its subdomains', () => {
    // undici (fetch, the generator) and Node's agents (token requests, OTLP) differ on each
    // of these by themselves; the service hands both the same, unambiguous values.
    const httpOnly = proxyEnv({ httpsProxy: undefined, httpProxy: 'http://proxy.corp:3128', noProxy: undefined }, {});
    expect(httpOnly).to.include({ HTTP_PROXY: 'http://proxy.corp:3128', HTTPS_PROXY: 'http://proxy.corp:3128' });
    expect(proxyEnv({ httpsProxy: 'http://a:1', httpProxy: 'http://b:2', noProxy: undefined }, {})).to.include({ HTTPS_PROXY: 'http://a:1', HTTP_PROXY: 'http://b:2' });
    expect(proxyEnv({ httpsProxy: 'http://a:1', httpProxy: undefined, noProxy: 'internal.example,*' }, {}).NO_PROXY).to.equal('*');
    const names = proxyEnv({ httpsProxy: 'http://a:1', httpProxy: undefined, noProxy: 'example.test, .corp, *.lan, 10.1.2.3, 10.0.0.0/8, [fd00::1]' }, {}).NO_PROXY?.split(',');
    expect(names).to.include.members(['example.test', '.example.test', '.corp', '*.lan', '10.1.2.3', '10.0.0.0/8', '[fd00::1]']);
    for (const doubled of ['..corp', '.*.lan', '.10.1.2.3', '.10.0.0.0/8']) expect(names, doubled).not.to.include(doubled);
  });

  it('is off without HTTPS_PROXY or HTTP_PROXY (NO_PROXY alone changes nothing)', () => {
    expect(proxyConfigured({ httpsProxy: undefined, httpProxy: undefined, noProxy: 'x' })).to.equal(false);
    expect(proxyConfigured({ httpsProxy: undefined, httpProxy: 'http://p:1', noProxy: undefined })).to.equal(true);
  });

  it('keeps the metadata server out of the proxy in every spelling a client asks it by: the trailing dot, an IPv6 override bare and in brackets', () => {
    const env = proxyEnv({ httpsProxy: 'http://proxy.corp:3128', httpProxy: undefined, noProxy: undefined }, { GCE_METADATA_HOST: '[fd00:1::5]:80' });
    expect(env.NO_PROXY?.split(',')).to.include.members(['metadata.google.internal.', 'fd20:ce::254', '[fd20:ce::254]', 'fd00:1::5', '[fd00:1::5]']);
  });

  it('token requests get agents of Node\'s own proxy support, by the URL\'s protocol; none without a proxy', () => {
    expect(tokenRequestAgent({ httpsProxy: undefined, httpProxy: undefined, noProxy: '*' })).to.equal(undefined);
    const agent = tokenRequestAgent({ httpsProxy: 'http://proxy.corp:3128', httpProxy: undefined, noProxy: 'OAUTH2.GOOGLEAPIS.COM' }, {});
    expect(agent?.(new URL('https://oauth2.googleapis.com/token'))).to.be.instanceOf(https.Agent);
    const plain = agent?.(new URL('http://token.internal/token'));
    expect(plain).to.be.instanceOf(http.Agent).and.not.to.be.instanceOf(https.Agent);
  });
});

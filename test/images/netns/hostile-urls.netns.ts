// A larger hostile set than the spec sample, by class of attack (issue 3, R22, R23):
// numeric encodings, IPv6 spellings and embeddings, special names, userinfo, ports,
// schemes, and DNS answers. Every one refused, no connection attempted.
import { expect } from 'chai';
import { expectFailure, secretsOf } from '../support/expect-failure.ts';
import { tableResolver } from '../support/fetchers.ts';
import { guardConnections, hostileFetcher, IN_NETNS } from '../support/hostile.ts';
import type { ImageFetchReason } from '../../../src/images/index.ts';

const LITERALS: Record<string, readonly string[]> = {
  'IPv4 loopback encodings': [
    'http://127.0.0.1/', 'http://127.0.0.1:8080/x.png', 'http://127.1/', 'http://127.0.1/', 'http://2130706433/', 'http://0x7f000001/',
    'http://0x7F.1/', 'http://0177.0.0.1/', 'http://0177.1/', 'http://00000177.0.0.01/', 'http://0x00007f.0x0.0.1/', 'http://127.000.000.001/',
    'http://127.0.0.1./', 'http://127.0.0.1.:8080/', 'http://127.255.255.254/', 'http://127.1.2.3:80/', 'HTTP://127.0.0.1/', 'http:\\\\127.0.0.1\\x.png',
    'http://127.0.0.1\t/x.png', 'http://12\n7.0.0.1/', 'http://%31%32%37.0.0.1/', 'http://１２７.０.０.１/', 'http://127。0。0。1/', 'http://127｡0｡0｡1/',
    'http://0x7f.0.0.0x1/', 'http://017700000001/', 'http://0x7f.0xff.0xff.0xff/',
  ],
  'unspecified address': ['http://0/', 'http://0.0.0.0/', 'http://0x0/', 'http://00/', 'http://0.0.0.0:8080/', 'http://0.1.2.3/'],
  'private, CGNAT and link-local encodings': [
    'http://10.0.0.1/', 'http://012.0.0.1/', 'http://0xa.0.0.1/', 'http://167772161/', 'http://10.255.255.255/', 'http://172.16.0.1/',
    'http://172.31.255.255/', 'http://0xac100001/', 'http://192.168.0.1/', 'http://3232235521/', 'http://0xc0a80001/', 'http://192.168.1/',
    'http://0300.0250.0.1/', 'http://100.64.0.1/', 'http://100.127.255.255/', 'http://100.100.100.200/', 'http://0x64.0x64.0x64.0xc8/',
    'http://169.254.169.254/', 'http://0xA9.0xFE.0xA9.0xFE/', 'http://0251.0376.0251.0376/', 'http://2852039166/', 'http://169.254.43518/',
    'http://169.254.169.254/latest/meta-data/iam/', 'http://169.254.170.2/v2/credentials/', 'http://168.63.129.16/', 'http://192.0.0.192/',
  ],
  'other special IPv4': [
    'http://192.0.2.1/', 'http://198.51.100.7/', 'http://203.0.113.9/', 'http://198.19.255.255/', 'http://192.88.99.1/', 'http://192.31.196.1/',
    'http://192.52.193.1/', 'http://192.175.48.6/', 'http://224.0.0.1/', 'http://239.255.255.250:1900/', 'http://240.0.0.1/', 'http://255.255.255.255/',
  ],
  'IPv6 loopback and unspecified spellings': [
    'http://[::1]/', 'http://[0::1]/', 'http://[::0:1]/', 'http://[0:0::1]/', 'http://[0000:0000:0000:0000:0000:0000:0000:0001]/',
    'http://[0:0:0:0:0:0:0:1]:8080/', 'http://[::]/', 'http://[0:0:0:0:0:0:0:0]/', 'http://[::0.0.0.1]/',
  ],
  'IPv6 forms embedding a blocked IPv4': [
    'http://[::ffff:127.0.0.1]/', 'http://[::FFFF:7F00:1]/', 'http://[::ffff:7f00:0001]:8080/', 'http://[0:0:0:0:0:ffff:127.0.0.1]/',
    'http://[::ffff:169.254.169.254]/', 'http://[::ffff:a9fe:a9fe]/', 'http://[::ffff:10.0.0.1]/', 'http://[::ffff:c0a8:101]/',
    'http://[::ffff:100.64.0.1]/', 'http://[::127.0.0.1]/', 'http://[::7f00:1]/', 'http://[::a9fe:a9fe]/', 'http://[::ffff:0:127.0.0.1]/',
    'http://[::ffff:0:a9fe:a9fe]/', 'http://[64:ff9b::127.0.0.1]/', 'http://[64:ff9b::a9fe:a9fe]/', 'http://[64:ff9b::10.0.0.1]/',
    'http://[64:ff9b::100.100.100.200]/', 'http://[64:ff9b:1::7f00:1]/', 'http://[64:ff9b:1:7f00:0:100::]/', 'http://[2002:7f00:1::]/',
    'http://[2002:a9fe:a9fe::1]/', 'http://[2002:c0a8:101::]/', 'http://[2002:0a00:0001::]/', 'http://[2001:0:7f00:1::]/',
    'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/', 'http://[2001::a9fe:a9fe:0:0:5601:5601]/', 'http://[2606:4700::5efe:7f00:1]/',
  ],
  'special IPv6 ranges': [
    'http://[fd00:ec2::254]/', 'http://[fc00::1]/', 'http://[fdff:ffff::1]/', 'http://[fe80::1]/', 'http://[fe80::a9fe:a9fe]/', 'http://[febf::1]/',
    'http://[fec0::1]/', 'http://[ff02::1]/', 'http://[ff05::1:3]/', 'http://[100::1]/', 'http://[2001:db8::1]/', 'http://[2001:2::1]/',
    'http://[2001:10::1]/', 'http://[2001:20::1]/', 'http://[2620:4f:8000::1]/', 'http://[3fff::1]/', 'http://[5f00::1]/', 'http://[4000::1]/',
  ],
};

const BY_REASON: [ImageFetchReason, readonly string[]][] = [
  ['blocked_name', [
    'http://localhost/', 'http://LOCALHOST:8080/', 'http://localhost./', 'http://localhost../', 'http://foo.localhost/', 'http://a.b.localhost:8080/',
    'http://metadata/computeMetadata/v1/', 'http://metadata.google.internal/computeMetadata/v1/', 'http://instance-data/latest/', 'http://runsc/',
    'http://vm/', 'http://printer.local/', 'http://router.home.arpa/', 'http://1.0.0.127.in-addr.arpa/', 'http://kubernetes/', 'http://redis:6379/',
    'http://ｌｏｃａｌｈｏｓｔ/', 'http://localhost%2e/', 'http://LocalHost.LocalDomain/', 'http://db.internal:5432/', 'http://x.onion/',
  ]],
  ['userinfo', [
    'http://user@example.com/', 'http://user:pass@example.com/', 'http://:pass@example.com/', 'http://example.com@127.0.0.1/',
    'http://127.1.1.1:80@127.2.2.2:80/', 'https://a%40b@example.com/', 'http://user@[::1]/',
  ]],
  ['bad_port', ['http://example.com:0/', 'http://[2606:4700:4700::1111]:0/', 'https://93.184.216.34:0/']],
  ['bad_scheme', [
    'file:///etc/passwd', 'file://localhost/etc/passwd', 'ftp://example.com/x.png', 'gopher://127.0.0.1:6379/_INFO', 'dict://127.0.0.1:6379/info',
    'ldap://127.0.0.1/', 'javascript:alert(1)', 'data:image/png;base64,iVBORw0KGgo=', 'blob:http://example.com/uuid', 'ws://example.com/',
    'wss://example.com/', 'view-source:http://example.com/', 'about:blank', 'jar:http://127.0.0.1!/x.png', 'netdoc:///etc/passwd',
    'http+unix://%2Fvar%2Frun%2Fdocker.sock/info', 'unix:/var/run/docker.sock:/info', 'HTTPS+x://example.com/', 'mailto:a@example.com',
  ]],
  ['invalid_url', [
    '', ' ', 'x.png', '/x.png', '//example.com/x.png', 'http://', 'http:///', 'http://[::1/', 'http://[::1]]/', 'http://[fe80::1%25eth0]/',
    'http://[::ffff:127.1]/', 'http://256.0.0.1/', 'http://1.2.3.4.5/', 'http://0x100000000/', 'http://example.com%40127.0.0.1/',
    'http://exa mple.com/', 'http://example.com:65536/', 'http://example.com:-1/', 'http://a<b.com/',
  ]],
];

// Names whose DNS answers are hostile: the resolver is injected, nothing leaves the process.
const DNS: Record<string, { answers: readonly string[] | 'fail'; kind: 'rejected' | 'unavailable' }> = {
  'loopback.test': { answers: ['127.0.0.1'], kind: 'rejected' },
  'private.test': { answers: ['10.0.0.1'], kind: 'rejected' },
  'metadata.test': { answers: ['169.254.169.254'], kind: 'rejected' },
  'alibaba.test': { answers: ['100.100.100.200'], kind: 'rejected' },
  'v6-loopback.test': { answers: ['::1'], kind: 'rejected' },
  'mapped.test': { answers: ['::ffff:127.0.0.1'], kind: 'rejected' },
  'mapped-hex.test': { answers: ['::ffff:a9fe:a9fe'], kind: 'rejected' },
  'nat64.test': { answers: ['64:ff9b::a9fe:a9fe'], kind: 'rejected' },
  'sixtofour.test': { answers: ['2002:0a00:0001::1'], kind: 'rejected' },
  'ula.test': { answers: ['fd00:ec2::254'], kind: 'rejected' },
  'linklocal.test': { answers: ['fe80::1%eth0'], kind: 'rejected' },
  'mixed.test': { answers: ['93.184.216.34', '10.0.0.1'], kind: 'rejected' },
  'mixed-v6.test': { answers: ['2606:4700:4700::1111', '::1'], kind: 'rejected' },
  'many.test': { answers: ['93.184.216.34', '1.1.1.1', '8.8.8.8', '8.8.4.4', '9.9.9.9', '192.168.0.1'], kind: 'rejected' },
  'garbage.test': { answers: ['not-an-address'], kind: 'rejected' },
  'octal.test': { answers: ['0177.0.0.1'], kind: 'rejected' },
  'empty.test': { answers: [], kind: 'unavailable' },
  'nxdomain.test': { answers: 'fail', kind: 'unavailable' },
};

const resolver = tableResolver(
  Object.fromEntries(Object.entries(DNS).filter(([, v]) => v.answers !== 'fail').map(([name, v]) => [name, v.answers as string[]])),
);

const ALLOW_LOCAL_BUT_STILL_REFUSED = [
  'http://127.0.0.2/', 'http://127.1.2.3:8080/', 'http://0.0.0.0/', 'http://0/', 'http://[::1]/', 'http://[::]/', 'http://[::ffff:127.0.0.1]/',
  'http://[::ffff:7f00:1]:8080/', 'http://[::127.0.0.1]/', 'http://[::ffff:0:127.0.0.1]/', 'http://[64:ff9b::127.0.0.1]/', 'http://[2002:7f00:1::]/',
  'http://[2001:0:7f00:1::]/', 'http://localhost/', 'http://foo.localhost/', 'http://v6-loopback.test/', 'http://two.test/',
];

const everyUrl = [
  ...Object.values(LITERALS).flat(),
  ...BY_REASON.flatMap(([, urls]) => urls),
  ...Object.keys(DNS).map((name) => `http://${name}/x.png`),
  ...ALLOW_LOCAL_BUT_STILL_REFUSED,
];

describe('hostile URLs beyond the sample: refused by class of attack, no connection (issue 3, R22, R23)', () => {
  const guard = guardConnections(everyUrl);

  for (const [group, urls] of Object.entries(LITERALS)) {
    it(`${group}: every one rejected as blocked_address before any socket`, async () => {
      for (const url of urls) {
        await expectFailure(hostileFetcher(resolver).fetch([url]), { kind: 'rejected', reason: 'blocked_address' }, secretsOf(url)).catch((e: Error) => {
          throw new Error(`${JSON.stringify(url)}: ${e.message}`);
        });
      }
      await guard.check();
    });
  }

  for (const [reason, urls] of BY_REASON) {
    it(`${reason}: every one rejected`, async () => {
      for (const url of urls) {
        await expectFailure(hostileFetcher(resolver).fetch([url]), { kind: 'rejected', reason }, secretsOf(url)).catch((e: Error) => {
          throw new Error(`${JSON.stringify(url)}: ${e.message}`);
        });
      }
      await guard.check();
    });
  }

  for (const [name, { answers, kind }] of Object.entries(DNS)) {
    it(`a name answering ${JSON.stringify(answers)} is ${kind}`, async () => {
      const reason = kind === 'rejected' ? 'blocked_address' : 'dns_failure';
      const secrets = [name, ...(answers === 'fail' ? [] : answers)];
      await expectFailure(hostileFetcher(resolver).fetch([`http://${name}/x.png`]), { kind, reason }, secrets);
      await guard.check();
    });
  }

  it('with REMOTE_IMAGE_ALLOW_CIDRS=127.0.0.1/32, every other loopback spelling is still rejected', async () => {
    const local = tableResolver({ 'v6-loopback.test': ['::1'], 'two.test': ['127.0.0.1', '127.0.0.2'] });
    for (const url of ALLOW_LOCAL_BUT_STILL_REFUSED) {
      await expectFailure(hostileFetcher(local, ['127.0.0.1/32']).fetch([url]), { kind: 'rejected' }, secretsOf(url)).catch((e: Error) => {
        throw new Error(`${JSON.stringify(url)}: ${e.message}`);
      });
    }
    await guard.check();
  });

  it('a hostile URL anywhere in the request refuses the whole request at its index, before any connection', async () => {
    const urls = ['http://93.184.216.34/a.png', 'http://public.test/b.png', 'http://[::ffff:a9fe:a9fe]/c.png'];
    await expectFailure(hostileFetcher(resolver).fetch(urls), { kind: 'rejected', reason: 'blocked_address', index: 2 }, ['a9fe', '169.254']);
    await guard.check();
  });

  it('with the system resolver and no network, names are refused or unavailable, never fetched', async () => {
    // Only inside the namespace: outside it the system resolver could reach a real DNS server.
    expect(IN_NETNS, 'run through hostile-urls-in-namespace.test.ts').to.equal(true);
    for (const url of ['http://example.com/x.png', 'http://7f000001.a9fea9fe.rbndr.us/', 'http://127.0.0.1.nip.io/', 'http://localtest.me/', 'https://images.example.org:8443/a.jpg']) {
      await expectFailure(hostileFetcher(undefined).fetch([url]), { kind: 'rejected_or_unavailable' }, secretsOf(url));
    }
    await guard.check();
  });

  it('no port guard saw a connection and no connection was attempted, over the whole file', () => guard.check());
});

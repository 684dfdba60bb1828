// A hostile set larger than the spec sample, built by class of attack, against the whole service
// in a loopback-only network namespace (issue 3 "How it will be checked", spec 4.1, R22, R23).
// REMOTE_IMAGE_ALLOW_CIDRS is empty. Outcomes: 400 invalid_request_payload where the value is
// not an absolute http(s) URL (spec 2.1 rule 3, R8); 422 remote_evidence_image_rejected for a
// blocked target however it is spelled; 422 or 503 where only DNS could tell. No connection to
// any refused address, nothing stored, no generator call, no internal detail in any body.
// Started by ../hostile-urls-in-namespace.test.ts.
import { hostileHarness, portsOf, type Outcome } from '../support/netns.ts';

const REJECTED: Record<string, readonly string[]> = {
  'IPv4 loopback in every encoding': [
    'http://127.0.0.1/x.png', 'http://127.1/', 'http://127.0.1/', 'http://2130706433/', 'http://0x7f000001/', 'http://0x7F.1/',
    'http://0177.0.0.1/', 'http://0177.1/', 'http://00000177.0.0.01/', 'http://127.000.000.001/', 'http://127.0.0.1./',
    'http://127.0.0.1.:8080/', 'http://127.255.255.254/', 'http://127.1.2.3:80/', 'HTTP://127.0.0.1/', 'hTTp://127.0.0.1/',
    'http://127.0.0.1\t/x.png', 'http://12\n7.0.0.1/', 'http://%31%32%37.0.0.1/', 'http://１２７.０.０.１/', 'http://127。0。0。1/',
    'http://127｡0｡0｡1/', 'http://0x7f.0.0.0x1/', 'http://017700000001:8080/', 'http://0x7f.0xff.0xff.0xff/', 'http://127.0.0.1:6379/',
    'http://127.0.0.1:2375/v1.24/containers/json', 'https://127.0.0.1/', 'https://127.0.0.1:8443/', 'http://127.0.0.1:0/',
    'http://127.0.0.1?@example.com/x.png', 'http://127.0.0.1#@example.com/x.png', 'http:///127.0.0.1/x.png', '\t http://127.0.0.1/x.png \n',
  ],
  'the unspecified address': ['http://0/', 'http://0.0.0.0/', 'http://0x0/', 'http://00/', 'http://0.0.0.0:8080/', 'http://0.1.2.3/', 'http://[::]/', 'http://[::]:80/'],
  '10.0.0.0/8': ['http://10.0.0.1/', 'http://012.0.0.1/', 'http://0xa.0.0.1/', 'http://167772161/', 'http://10.255.255.255:9200/', 'http://10.1/'],
  '172.16.0.0/12': ['http://172.16.0.1/', 'http://172.31.255.255/', 'http://0xac100001/', 'http://0254.16.0.1/', 'http://0xac.0x10.0.1/'],
  '192.168.0.0/16': ['http://192.168.0.1/', 'http://3232235521/', 'http://0xc0a80001/', 'http://192.168.1/', 'http://0300.0250.0.1/'],
  '169.254.0.0/16 and cloud metadata': [
    'http://169.254.169.254/', 'http://0xA9.0xFE.0xA9.0xFE/', 'http://0251.0376.0251.0376/', 'http://2852039166/', 'http://169.254.43518/',
    'http://169.16689662/', 'http://0xa9fea9fe/', 'http://169.254.169.254/latest/meta-data/iam/', 'http://169.254.170.2/v2/credentials/',
    'https://169.254.169.254/', 'http://168.63.129.16/', 'http://192.0.0.192/', 'http://100.100.100.200/',
  ],
  '100.64.0.0/10': ['http://100.64.0.1/', 'http://100.127.255.255/', 'http://0x64.0x64.0x64.0xc8/', 'http://1681915905/'],
  'other special-purpose IPv4': [
    'http://192.0.2.1/', 'http://198.18.0.1/', 'http://198.19.255.255/', 'http://198.51.100.7/', 'http://203.0.113.9/', 'http://192.88.99.1/',
    'http://224.0.0.1/', 'http://239.255.255.250:1900/', 'http://240.0.0.1/', 'http://255.255.255.255/',
  ],
  'IPv6 loopback in every spelling': [
    'http://[::1]/', 'http://[0::1]/', 'http://[::0:1]/', 'http://[0:0::1]/', 'http://[0000:0000:0000:0000:0000:0000:0000:0001]/',
    'http://[0:0:0:0:0:0:0:1]:8080/', 'http://[::0.0.0.1]/', 'https://[::1]:8443/', 'http://[::1]:9200/',
  ],
  'fc00::/7 unique local': ['http://[fc00::1]/', 'http://[fd00:ec2::254]/', 'http://[fdff:ffff::1]/', 'http://[FD12:3456:789A::1]/'],
  'fe80::/10 link-local and fec0::/10': ['http://[fe80::1]/', 'http://[fe80::a9fe:a9fe]/', 'http://[febf::1]/', 'http://[fec0::1]/'],
  'IPv4-mapped IPv6': [
    'http://[::ffff:127.0.0.1]/', 'http://[::FFFF:7F00:1]/', 'http://[::ffff:7f00:0001]:8080/', 'http://[0:0:0:0:0:ffff:127.0.0.1]/',
    'http://[::ffff:169.254.169.254]/', 'http://[::ffff:a9fe:a9fe]/', 'http://[::ffff:10.0.0.1]/', 'http://[::ffff:c0a8:101]/',
    'http://[::ffff:100.64.0.1]/', 'http://[::ffff:0.0.0.0]/',
  ],
  'IPv4-translated (SIIT) IPv6': ['http://[::ffff:0:127.0.0.1]/', 'http://[::ffff:0:7f00:1]/', 'http://[::ffff:0:a9fe:a9fe]/'],
  'IPv4-compatible IPv6': ['http://[::127.0.0.1]/', 'http://[::7f00:1]/', 'http://[::a9fe:a9fe]/', 'http://[::10.0.0.1]/', 'http://[::c0a8:1]/'],
  'NAT64 (well-known and local-use prefixes)': [
    'http://[64:ff9b::127.0.0.1]/', 'http://[64:ff9b::7f00:1]/', 'http://[64:ff9b::a9fe:a9fe]/', 'http://[64:ff9b::10.0.0.1]/',
    'http://[64:ff9b::100.100.100.200]/', 'http://[64:ff9b:1::7f00:1]/', 'http://[64:ff9b:1:7f00:0:100::]/',
  ],
  '6to4 (2002::/16)': ['http://[2002:7f00:1::]/', 'http://[2002:7f00:0001::1]/', 'http://[2002:a9fe:a9fe::1]/', 'http://[2002:c0a8:101::]/', 'http://[2002:0a00:0001::]/'],
  'Teredo (2001::/32)': [
    'http://[2001:0:7f00:1::]/', 'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/', 'http://[2001::a9fe:a9fe:0:0:5601:5601]/',
    'http://[2001:0:a9fe:a9fe::]/',
  ],
  'other special-purpose IPv6': [
    'http://[ff02::1]/', 'http://[ff05::1:3]/', 'http://[100::1]/', 'http://[2001:db8::1]/', 'http://[2001:2::1]/', 'http://[2001:10::1]/',
    'http://[2001:20::1]/', 'http://[3fff::1]/', 'http://[5f00::1]/',
  ],
  'localhost by name (RFC 6761: always loopback)': [
    'http://localhost/', 'http://LOCALHOST:8080/', 'http://LocalHost/x.png', 'http://foo.localhost/', 'http://a.b.localhost:8080/',
    'http://ｌｏｃａｌｈｏｓｔ/', 'https://localhost:8443/',
  ],
  'userinfo in front of a blocked host': [
    'http://example.com@127.0.0.1/', 'http://127.1.1.1:80@127.2.2.2:80/', 'http://user@[::1]/', 'http://user:pass@169.254.169.254/',
    'http://a%40b@10.0.0.1/',
  ],
};

const PAYLOAD: Record<string, readonly string[]> = {
  'schemes other than http and https': [
    'file:///etc/passwd', 'file://localhost/etc/passwd', 'FILE:///etc/passwd', 'ftp://127.0.0.1/x.png', 'gopher://127.0.0.1:6379/_INFO',
    'dict://127.0.0.1:6379/info', 'ldap://127.0.0.1/', 'javascript:alert(1)', 'data:image/png;base64,iVBORw0KGgo=', 'data:,hello',
    'blob:http://127.0.0.1/uuid', 'ws://127.0.0.1/', 'wss://127.0.0.1/', 'view-source:http://127.0.0.1/', 'jar:http://127.0.0.1!/x.png',
    'netdoc:///etc/passwd', 'http+unix://%2Fvar%2Frun%2Fdocker.sock/info', 'unix:/var/run/docker.sock:/info', 'mailto:a@example.com',
    'tftp://127.0.0.1/x', 'sftp://127.0.0.1/x', 'httpx://127.0.0.1/',
  ],
  'values that are not absolute URLs or do not parse': [
    '', ' ', 'x.png', '/x.png', '//127.0.0.1/x.png', 'http:/127.0.0.1/x.png', 'http:127.0.0.1/x.png', 'http:\\\\127.0.0.1\\x.png', 'http://',
    'http:///', 'http://:80/', 'http://[::1/', 'http://[::1]]/', 'http://[fe80::1%25eth0]/', 'http://[fe80::a9fe:a9fe%eth0]/',
    'http://[::ffff:127.1]/', 'http://256.0.0.1/', 'http://425.510.425.510/', 'http://1.2.3.4.5/', 'http://0x100000000/',
    'http://example.com%40127.0.0.1/', 'http://127.0.0.1 /x.png', 'http://exa mple.com/', 'http://example.com:65536/',
    'http://127.0.0.1:-1/', 'http://a<b.com/', 'http://[127.0.0.1]/', 'http://[::1]x/',
  ],
};

// Names only DNS could judge: the namespace has no DNS, so 503 unless refused by name (422).
const NEEDS_DNS: readonly string[] = [
  'http://metadata/computeMetadata/v1/', 'http://metadata.google.internal/computeMetadata/v1/', 'http://instance-data/latest/',
  'http://kubernetes.default.svc/', 'http://redis:6379/', 'http://db.internal:5432/', 'http://printer.local/', 'http://router.home.arpa/',
  'http://1.0.0.127.in-addr.arpa/', 'http://localhost./', 'http://localhost%2e/', 'http://LocalHost.LocalDomain/', 'http://x.onion/',
  'http://7f000001.a9fea9fe.rbndr.us/', 'http://127.0.0.1.nip.io/', 'http://169.254.169.254.nip.io/', 'http://localtest.me/',
  'http://example.com/x.png', 'https://images.example.org:8443/a.jpg', 'http://user:pass@example.com/', 'http://0x7f.example.com/',
  'http://127.0.0.1.example.com/', 'http://ssrf.example.net:6379/',
];

describe('hostile URLs by class of attack against the whole service, loopback-only namespace: ruled code, no connection (issue 3, R22, R23)', () => {
  const harness = hostileHarness({}, portsOf([...Object.values(REJECTED).flat(), ...Object.values(PAYLOAD).flat(), ...NEEDS_DNS]));

  for (const [group, urls] of Object.entries(REJECTED)) {
    it(`${group}: 422 remote_evidence_image_rejected for each, no connection (R23)`, async () => {
      for (const url of urls) await harness().expectOutcome([url], 'rejected');
      await harness().check();
    });
  }

  for (const [group, urls] of Object.entries(PAYLOAD)) {
    it(`${group}: 400 invalid_request_payload naming the URL's pointer, no connection (spec 2.1 rule 3, R8)`, async () => {
      for (const url of urls) await harness().expectOutcome([url], 'payload');
      await harness().check();
    });
  }

  it('names only DNS could judge: 422 or 503 for each, never a fetch (R23)', async () => {
    for (const url of NEEDS_DNS) await harness().expectOutcome([url], 'rejected_or_unavailable');
    await harness().check();
  });

  it('a hostile URL anywhere in the request refuses the whole request at its index, before any lookup or connection (R23)', async () => {
    const outcomes: [readonly string[], Outcome, number][] = [
      [['http://example.com/a.png', 'http://[::ffff:a9fe:a9fe]/b.png'], 'rejected', 1],
      [['https://images.example.org/a.png', 'http://example.net/b.png', 'http://0x7f.1/c.png'], 'rejected', 2],
      [['http://10.0.0.1/a.png', 'http://127.0.0.1/b.png'], 'rejected', 0],
      [['http://example.com/a.png', 'file:///etc/passwd'], 'payload', 1],
    ];
    for (const [urls, outcome, index] of outcomes) await harness().expectOutcome(urls, outcome, index);
    await harness().check();
  });

  it('no guard saw a connection, no attempt beyond the service, nothing generated or stored, over the whole file', () => harness().check());
});

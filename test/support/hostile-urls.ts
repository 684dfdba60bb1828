// The one list of hostile image URLs, larger than the spec sample (docs/spec/ssrf-sample-cases.json,
// which stays the spec's own), by class of attack (spec 4.1, R8, R22, R23). Each class
// states what both levels expect, and both network-namespace suites read it:
// - `fetcher`: the refusal of HttpImageFetcher given the URL alone, no CIDR allowed, names answered
//   from HOSTILE_DNS (test/integration/images/netns/hostile-urls.netns.ts);
// - `service`: the whole service's answer, REMOTE_IMAGE_ALLOW_CIDRS empty, no DNS at all
//   (test/e2e/netns/hostile-urls.netns.ts): 400 invalid_request_payload where the value is not an
//   absolute http(s) URL (R8), 422 remote_evidence_image_rejected for a target refused before any
//   lookup, 422 or 503 where only DNS could tell.
// Every URL appears once; the namespace suite checks it.
import type { ImageFetchReason } from '../../src/images/index.ts';

export type ServiceOutcome = 'payload' | 'rejected' | 'rejected_or_unavailable';

export interface HostileClass {
  readonly attack: string;
  readonly fetcher: ImageFetchReason;
  readonly service: ServiceOutcome;
  readonly urls: readonly string[];
}

/** What an attacker's DNS answers: every name with an address is refused, empty.test has no answer. */
export const HOSTILE_DNS: Readonly<Record<string, readonly string[]>> = {
  'loopback.test': ['127.0.0.1'],
  'private.test': ['10.0.0.1'],
  'metadata.test': ['169.254.169.254'],
  'alibaba.test': ['100.100.100.200'],
  'v6-loopback.test': ['::1'],
  'mapped.test': ['::ffff:127.0.0.1'],
  'mapped-hex.test': ['::ffff:a9fe:a9fe'],
  'nat64.test': ['64:ff9b::a9fe:a9fe'],
  'sixtofour.test': ['2002:0a00:0001::1'],
  'ula.test': ['fd00:ec2::254'],
  'linklocal.test': ['fe80::1%eth0'],
  'mixed.test': ['93.184.216.34', '10.0.0.1'],
  'mixed-v6.test': ['2606:4700:4700::1111', '::1'],
  'many.test': ['93.184.216.34', '1.1.1.1', '8.8.8.8', '8.8.4.4', '9.9.9.9', '192.168.0.1'],
  'two.test': ['127.0.0.1', '127.0.0.2'],
  'garbage.test': ['not-an-address'],
  'octal.test': ['0177.0.0.1'],
  'empty.test': [],
};

const blocked = (attack: string, urls: readonly string[]): HostileClass => ({ attack, fetcher: 'blocked_address', service: 'rejected', urls });

export const HOSTILE_URLS: readonly HostileClass[] = [
  blocked('IPv4 loopback in every encoding', [
    'http://127.0.0.1/', 'http://127.0.0.1/x.png', 'http://127.0.0.1:8080/x.png', 'http://127.1/', 'http://127.0.1/', 'http://2130706433/',
    'http://0x7f000001/', 'http://0x7F.1/', 'http://0177.0.0.1/', 'http://0177.1/', 'http://00000177.0.0.01/', 'http://0x00007f.0x0.0.1/',
    'http://127.000.000.001/', 'http://127.0.0.1./', 'http://127.0.0.1.:8080/', 'http://127.0.0.2/', 'http://127.255.255.254/',
    'http://127.1.2.3:80/', 'http://127.1.2.3:8080/', 'HTTP://127.0.0.1/', 'hTTp://127.0.0.1/', 'http://127.0.0.1\t/x.png', 'http://12\n7.0.0.1/',
    'http://%31%32%37.0.0.1/', 'http://１２７.０.０.１/', 'http://127。0。0。1/', 'http://127｡0｡0｡1/', 'http://0x7f.0.0.0x1/', 'http://017700000001/',
    'http://017700000001:8080/', 'http://0x7f.0xff.0xff.0xff/', 'http://127.0.0.1:6379/', 'http://127.0.0.1:2375/v1.24/containers/json',
    'https://127.0.0.1/', 'https://127.0.0.1:8443/', 'http://127.0.0.1?@example.com/x.png', 'http://127.0.0.1#@example.com/x.png',
    'http:///127.0.0.1/x.png', '\t http://127.0.0.1/x.png \n',
  ]),
  blocked('the unspecified address', [
    'http://0/', 'http://0.0.0.0/', 'http://0x0/', 'http://00/', 'http://0.0.0.0:8080/', 'http://0.1.2.3/', 'http://[::]/', 'http://[::]:80/',
    'http://[0:0:0:0:0:0:0:0]/',
  ]),
  blocked('10.0.0.0/8', [
    'http://10.0.0.1/', 'http://012.0.0.1/', 'http://0xa.0.0.1/', 'http://167772161/', 'http://10.255.255.255/', 'http://10.255.255.255:9200/', 'http://10.1/',
  ]),
  blocked('172.16.0.0/12', ['http://172.16.0.1/', 'http://172.31.255.255/', 'http://0xac100001/', 'http://0254.16.0.1/', 'http://0xac.0x10.0.1/']),
  blocked('192.168.0.0/16', ['http://192.168.0.1/', 'http://3232235521/', 'http://0xc0a80001/', 'http://192.168.1/', 'http://0300.0250.0.1/']),
  blocked('169.254.0.0/16 and cloud metadata', [
    'http://169.254.169.254/', 'http://0xA9.0xFE.0xA9.0xFE/', 'http://0251.0376.0251.0376/', 'http://2852039166/', 'http://169.254.43518/',
    'http://169.16689662/', 'http://0xa9fea9fe/', 'http://169.254.169.254/latest/meta-data/iam/', 'http://169.254.170.2/v2/credentials/',
    'https://169.254.169.254/', 'http://168.63.129.16/', 'http://192.0.0.192/', 'http://100.100.100.200/',
  ]),
  blocked('100.64.0.0/10', ['http://100.64.0.1/', 'http://100.127.255.255/', 'http://0x64.0x64.0x64.0xc8/', 'http://1681915905/']),
  blocked('other special-purpose IPv4', [
    'http://192.0.2.1/', 'http://198.18.0.1/', 'http://198.19.255.255/', 'http://198.51.100.7/', 'http://203.0.113.9/', 'http://192.88.99.1/',
    'http://192.31.196.1/', 'http://192.52.193.1/', 'http://192.175.48.6/', 'http://224.0.0.1/', 'http://239.255.255.250:1900/', 'http://240.0.0.1/',
    'http://255.255.255.255/',
  ]),
  blocked('IPv6 loopback in every spelling', [
    'http://[::1]/', 'http://[0::1]/', 'http://[::0:1]/', 'http://[0:0::1]/', 'http://[0000:0000:0000:0000:0000:0000:0000:0001]/',
    'http://[0:0:0:0:0:0:0:1]:8080/', 'http://[::0.0.0.1]/', 'https://[::1]:8443/', 'http://[::1]:9200/',
  ]),
  blocked('fc00::/7 unique local', ['http://[fc00::1]/', 'http://[fd00:ec2::254]/', 'http://[fdff:ffff::1]/', 'http://[FD12:3456:789A::1]/']),
  blocked('fe80::/10 link-local and fec0::/10', ['http://[fe80::1]/', 'http://[fe80::a9fe:a9fe]/', 'http://[febf::1]/', 'http://[fec0::1]/']),
  blocked('IPv4-mapped IPv6', [
    'http://[::ffff:127.0.0.1]/', 'http://[::FFFF:7F00:1]/', 'http://[::ffff:7f00:1]:8080/', 'http://[::ffff:7f00:0001]:8080/',
    'http://[0:0:0:0:0:ffff:127.0.0.1]/', 'http://[::ffff:169.254.169.254]/', 'http://[::ffff:a9fe:a9fe]/', 'http://[::ffff:10.0.0.1]/',
    'http://[::ffff:c0a8:101]/', 'http://[::ffff:100.64.0.1]/', 'http://[::ffff:0.0.0.0]/',
  ]),
  blocked('IPv4-translated (SIIT) IPv6', ['http://[::ffff:0:127.0.0.1]/', 'http://[::ffff:0:7f00:1]/', 'http://[::ffff:0:a9fe:a9fe]/']),
  blocked('IPv4-compatible IPv6', ['http://[::127.0.0.1]/', 'http://[::7f00:1]/', 'http://[::a9fe:a9fe]/', 'http://[::10.0.0.1]/', 'http://[::c0a8:1]/']),
  blocked('NAT64 (well-known and local-use prefixes)', [
    'http://[64:ff9b::127.0.0.1]/', 'http://[64:ff9b::7f00:1]/', 'http://[64:ff9b::a9fe:a9fe]/', 'http://[64:ff9b::10.0.0.1]/',
    'http://[64:ff9b::100.100.100.200]/', 'http://[64:ff9b:1::7f00:1]/', 'http://[64:ff9b:1:7f00:0:100::]/',
  ]),
  blocked('6to4 (2002::/16)', [
    'http://[2002:7f00:1::]/', 'http://[2002:7f00:0001::1]/', 'http://[2002:a9fe:a9fe::1]/', 'http://[2002:c0a8:101::]/', 'http://[2002:0a00:0001::]/',
  ]),
  blocked('Teredo (2001::/32)', [
    'http://[2001:0:7f00:1::]/', 'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/', 'http://[2001::a9fe:a9fe:0:0:5601:5601]/',
    'http://[2001:0:a9fe:a9fe::]/',
  ]),
  blocked('ISATAP interface identifier embedding loopback', ['http://[2606:4700::5efe:7f00:1]/']),
  blocked('other special-purpose IPv6', [
    'http://[ff02::1]/', 'http://[ff05::1:3]/', 'http://[100::1]/', 'http://[2001:db8::1]/', 'http://[2001:2::1]/', 'http://[2001:10::1]/',
    'http://[2001:20::1]/', 'http://[2620:4f:8000::1]/', 'http://[3fff::1]/', 'http://[5f00::1]/', 'http://[4000::1]/',
  ]),
  {
    attack: 'localhost by name (RFC 6761: always loopback)',
    fetcher: 'blocked_name',
    service: 'rejected',
    urls: [
      'http://localhost/', 'http://LOCALHOST:8080/', 'http://LocalHost/x.png', 'http://localhost./', 'http://localhost../', 'http://localhost%2e/',
      'http://foo.localhost/', 'http://a.b.localhost:8080/', 'http://ｌｏｃａｌｈｏｓｔ/', 'https://localhost:8443/',
    ],
  },
  {
    attack: 'names reserved for local use and single labels (the search list leads inward), refused whatever DNS would say',
    fetcher: 'blocked_name',
    service: 'rejected',
    urls: [
      'http://metadata/computeMetadata/v1/', 'http://metadata.google.internal/computeMetadata/v1/', 'http://instance-data/latest/', 'http://runsc/',
      'http://vm/', 'http://kubernetes/', 'http://redis:6379/', 'http://printer.local/', 'http://router.home.arpa/', 'http://1.0.0.127.in-addr.arpa/',
      'http://LocalHost.LocalDomain/', 'http://db.internal:5432/', 'http://x.onion/',
    ],
  },
  {
    attack: 'userinfo: credentials, or a blocked host disguised behind "@"',
    fetcher: 'userinfo',
    service: 'rejected',
    urls: [
      'http://user@example.com/', 'http://user:pass@example.com/', 'http://:pass@example.com/', 'https://a%40b@example.com/',
      'http://example.com@127.0.0.1/', 'http://127.1.1.1:80@127.2.2.2:80/', 'http://user@[::1]/', 'http://user:pass@169.254.169.254/',
      'http://a%40b@10.0.0.1/',
    ],
  },
  {
    attack: 'port 0',
    fetcher: 'bad_port',
    service: 'rejected',
    urls: ['http://example.com:0/', 'http://[2606:4700:4700::1111]:0/', 'https://93.184.216.34:0/', 'http://127.0.0.1:0/'],
  },
  {
    attack: 'schemes other than http and https',
    fetcher: 'bad_scheme',
    service: 'payload',
    urls: [
      'file:///etc/passwd', 'file://localhost/etc/passwd', 'FILE:///etc/passwd', 'ftp://example.com/x.png', 'ftp://127.0.0.1/x.png',
      'gopher://127.0.0.1:6379/_INFO', 'dict://127.0.0.1:6379/info', 'ldap://127.0.0.1/', 'javascript:alert(1)', 'data:image/png;base64,iVBORw0KGgo=',
      'data:,hello', 'blob:http://example.com/uuid', 'blob:http://127.0.0.1/uuid', 'ws://example.com/', 'ws://127.0.0.1/', 'wss://example.com/',
      'wss://127.0.0.1/', 'view-source:http://example.com/', 'view-source:http://127.0.0.1/', 'about:blank', 'jar:http://127.0.0.1!/x.png',
      'netdoc:///etc/passwd', 'http+unix://%2Fvar%2Frun%2Fdocker.sock/info', 'unix:/var/run/docker.sock:/info', 'HTTPS+x://example.com/',
      'mailto:a@example.com', 'tftp://127.0.0.1/x', 'sftp://127.0.0.1/x', 'httpx://127.0.0.1/',
    ],
  },
  {
    attack: 'values that are not absolute URLs or do not parse',
    fetcher: 'invalid_url',
    service: 'payload',
    urls: [
      '', ' ', 'x.png', '/x.png', '//example.com/x.png', '//127.0.0.1/x.png', 'http://', 'http:///', 'http://:80/', 'http://[::1/', 'http://[::1]]/',
      'http://[::1]x/', 'http://[127.0.0.1]/', 'http://[fe80::1%25eth0]/', 'http://[fe80::a9fe:a9fe%eth0]/', 'http://[::ffff:127.1]/',
      'http://256.0.0.1/', 'http://425.510.425.510/', 'http://1.2.3.4.5/', 'http://0x100000000/', 'http://example.com%40127.0.0.1/',
      'http://127.0.0.1 /x.png', 'http://exa mple.com/', 'http://example.com:65536/', 'http://example.com:-1/', 'http://127.0.0.1:-1/',
      'http://a<b.com/',
    ],
  },
  {
    // WHATWG URL reads these as http://127.0.0.1/; the contract wants "http://" written out.
    attack: 'http spellings without "//" that a URL parser still reads as loopback',
    fetcher: 'blocked_address',
    service: 'payload',
    urls: ['http:\\\\127.0.0.1\\x.png', 'http:/127.0.0.1/x.png', 'http:127.0.0.1/x.png'],
  },
  {
    attack: 'names answering a blocked address (DNS answers from HOSTILE_DNS)',
    fetcher: 'blocked_address',
    service: 'rejected_or_unavailable',
    urls: Object.entries(HOSTILE_DNS).flatMap(([name, answers]) => (answers.length > 0 ? [`http://${name}/x.png`] : [])),
  },
  {
    // HOSTILE_DNS has no answer for these: the fetcher's lookup fails; real DNS could say anything.
    attack: 'names only DNS could judge: rebinding services, wildcard DNS, names that look public',
    fetcher: 'dns_failure',
    service: 'rejected_or_unavailable',
    urls: [
      'http://empty.test/x.png', 'http://nxdomain.test/x.png', 'http://7f000001.a9fea9fe.rbndr.us/', 'http://127.0.0.1.nip.io/',
      'http://169.254.169.254.nip.io/', 'http://localtest.me/', 'http://0x7f.example.com/', 'http://127.0.0.1.example.com/',
      'http://kubernetes.default.svc/', 'http://example.com/x.png',
    ],
  },
  {
    // Only 80 and 443 (IMAGE_ALLOWED_PORTS adds more): refused before any lookup, so the
    // fetcher is no port scanner of public hosts, whatever their DNS says.
    attack: 'ports other than 80 and 443 on names that look public',
    fetcher: 'bad_port',
    service: 'rejected',
    urls: ['http://ssrf.example.net:6379/', 'https://images.example.org:8443/a.jpg', 'http://example.com:22/', 'http://93.184.216.34:8080/x.png', 'http://[2606:4700:4700::1111]:25/'],
  },
];

/** With REMOTE_IMAGE_ALLOW_CIDRS=127.0.0.1/32, still refused: every other loopback spelling (R22). Each is in HOSTILE_URLS. */
export const REFUSED_WITH_127_0_0_1_ALLOWED: readonly string[] = [
  'http://127.0.0.2/', 'http://127.1.2.3:8080/', 'http://0.0.0.0/', 'http://0/', 'http://[::1]/', 'http://[::]/', 'http://[::ffff:127.0.0.1]/',
  'http://[::ffff:7f00:1]:8080/', 'http://[::127.0.0.1]/', 'http://[::ffff:0:127.0.0.1]/', 'http://[64:ff9b::127.0.0.1]/', 'http://[2002:7f00:1::]/',
  'http://[2001:0:7f00:1::]/', 'http://localhost/', 'http://foo.localhost/', 'http://v6-loopback.test/x.png', 'http://two.test/x.png',
];

export const ALL_HOSTILE_URLS: readonly string[] = HOSTILE_URLS.flatMap((c) => c.urls);

/** The ports the URLs name explicitly: a guard listens on each. */
export function namedPorts(urls: readonly string[]): number[] {
  const ports = new Set<number>();
  for (const raw of urls) {
    try {
      const port = Number(new URL(raw.trim()).port);
      if (port > 0) ports.add(port);
    } catch {
      // Unparsable: names no port.
    }
  }
  return [...ports];
}

// The classifier against every range of blocked-ranges.json, with an independent
// BigInt oracle for the neighbours of each range (R22, R23).
import { expect } from 'chai';
import { AddressPolicy, BLOCKED_RANGES } from '../../../src/images/address-policy.ts';

const bitsOf = (family: string): number => (family === 'ipv4' ? 32 : 128);

function toBig(address: string, family: string): bigint {
  if (family === 'ipv4') return address.split('.').reduce((acc, part) => (acc << 8n) + BigInt(part), 0n);
  const [head = '', tail = ''] = address.split('::');
  const h = head === '' ? [] : head.split(':');
  const t = tail === '' ? [] : tail.split(':');
  const groups = address.includes('::') ? [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t] : h;
  return groups.reduce((acc, g) => (acc << 16n) + BigInt(parseInt(g, 16)), 0n);
}

function fromBig(value: bigint, family: string): string {
  if (family === 'ipv4') return [24n, 16n, 8n, 0n].map((s) => String((value >> s) & 255n)).join('.');
  const groups: string[] = [];
  for (let s = 112n; s >= 0n; s -= 16n) groups.push(((value >> s) & 0xffffn).toString(16));
  return groups.join(':');
}

interface Span {
  readonly first: bigint;
  readonly last: bigint;
  readonly family: string;
}

function span(cidr: string, family: string): Span {
  const [addr = '', bits = '0'] = cidr.split('/');
  const size = BigInt(bitsOf(family) - Number(bits));
  const first = toBig(addr, family);
  return { first, last: first + (1n << size) - 1n, family };
}

const spans = BLOCKED_RANGES.map((r) => span(r.cidr, r.family));
const globalUnicast = span('2000::', 'ipv6');
const global: Span = { ...globalUnicast, last: globalUnicast.first + (1n << 125n) - 1n };

/** Independent oracle: in a listed range, or IPv6 outside 2000::/3 (documented extra rule). */
function oracleBlocked(value: bigint, family: string): boolean {
  if (spans.some((s) => s.family === family && value >= s.first && value <= s.last)) return true;
  return family === 'ipv6' && (value < global.first || value > global.last);
}

describe('address policy: every range of blocked-ranges.json is refused (R22)', () => {
  const policy = new AddressPolicy();

  for (const range of BLOCKED_RANGES) {
    const s = span(range.cidr, range.family);
    const max = (1n << BigInt(bitsOf(range.family))) - 1n;
    it(`refuses the first, middle and last address of ${range.cidr} (${range.level}) (R23 unsafe destination)`, () => {
      for (const value of [s.first, s.first + (s.last - s.first) / 2n, s.last]) {
        const address = fromBig(value, range.family);
        expect(policy.isAllowed(address), address).to.equal(false);
      }
    });
    it(`decides the addresses just outside ${range.cidr} by the other rules only`, () => {
      for (const value of [s.first - 1n, s.last + 1n].filter((v) => v >= 0n && v <= max)) {
        const address = fromBig(value, range.family);
        expect(policy.isAllowed(address), address).to.equal(!oracleBlocked(value, range.family));
      }
    });
  }
});

describe('address policy: IPv4 embedded in IPv6 is checked as IPv4', () => {
  const policy = new AddressPolicy();
  const blockedV4 = ['127.0.0.1', '10.0.0.1', '169.254.169.254', '192.168.1.1', '100.64.0.1', '100.100.100.200', '172.16.0.1', '0.0.0.0', '224.0.0.1'];
  const v4hex = (v4: string): string[] => {
    const b = v4.split('.').map(Number);
    const word = (x: number, y: number): string => (((b[x] ?? 0) << 8) | (b[y] ?? 0)).toString(16);
    return [word(0, 1), word(2, 3)];
  };
  const forms = (v4: string): Record<string, string> => {
    const [hi, lo] = v4hex(v4);
    const notWords = v4.split('.').map((x) => 255 - Number(x));
    const nhi = ((notWords[0]! << 8) | notWords[1]!).toString(16);
    const nlo = ((notWords[2]! << 8) | notWords[3]!).toString(16);
    return {
      'mapped dotted': `::ffff:${v4}`,
      'mapped hex': `::ffff:${hi}:${lo}`,
      'mapped upper case': `::FFFF:${hi!.toUpperCase()}:${lo!.toUpperCase()}`,
      compatible: `::${v4}`,
      'SIIT translated': `::ffff:0:${hi}:${lo}`,
      'NAT64 well-known': `64:ff9b::${hi}:${lo}`,
      'NAT64 local-use /96': `64:ff9b:1::${hi}:${lo}`,
      '6to4': `2002:${hi}:${lo}::1`,
      'Teredo server': `2001:0:${hi}:${lo}:8000:63bf:${nhi}:${nlo}`,
      'Teredo client': `2001:0:4136:e378:8000:63bf:${nhi}:${nlo}`,
    };
  };

  for (const v4 of blockedV4) {
    it(`refuses every IPv6 form carrying ${v4}`, () => {
      for (const [name, address] of Object.entries(forms(v4))) expect(policy.isAllowed(address), `${name} ${address}`).to.equal(false);
    });
  }

  it('still refuses the forms carrying a public IPv4, since their prefixes are listed ranges themselves', () => {
    for (const v4 of ['8.8.8.8', '93.184.216.34']) {
      for (const [name, address] of Object.entries(forms(v4))) expect(policy.isAllowed(address), `${name} ${address}`).to.equal(false);
    }
  });

  it('passes the embedded check for a public IPv4 once the prefix itself is exempted', () => {
    const prefixes = ['::ffff:0:0/96', '::/96', '::ffff:0:0:0/96', '64:ff9b::/96', '64:ff9b:1::/48', '2002::/16', '2001::/23', '::/8'];
    const exempt = new AddressPolicy({ allowCidrs: prefixes });
    for (const [name, address] of Object.entries(forms('8.8.8.8'))) {
      // The local-use prefix length is unknown, so every RFC 6052 layout is read; one of
      // them always reads 0.x.x.x from the padding, so the form stays refused (fail closed).
      const expected = name !== 'NAT64 local-use /96';
      expect(exempt.isAllowed(address), `${name} ${address}`).to.equal(expected);
    }
    for (const [name, address] of Object.entries(forms('10.0.0.1'))) expect(exempt.isAllowed(address), `${name} ${address}`).to.equal(false);
    expect(policy.isAllowed('2606:4700::5efe:808:808'), 'ISATAP id carrying a public IPv4').to.equal(true);
    expect(exempt.isAllowed('2001:0:7f00:1:8000:63bf:f7f7:f7f7'), 'Teredo: blocked server, public client').to.equal(false);
    expect(exempt.isAllowed('2001:0:808:808:8000:63bf:80ff:fffe'), 'Teredo: public server, blocked client').to.equal(false);
  });

  it('finds the IPv4 of a NAT64 local-use address in every RFC 6052 layout (/48, /56, /64)', () => {
    // 127.0.0.1 at /48 (octets 6,7,9,10), /56 (7,9,10,11) and /64 (9..12); 8.8.8.8 elsewhere.
    const allow = new AddressPolicy({ allowCidrs: ['64:ff9b:1::/48'] });
    expect(allow.isAllowed('64:ff9b:1:7f00:0:100::')).to.equal(false);
    expect(allow.isAllowed('64:ff9b:1:7f:0:1::')).to.equal(false);
    expect(allow.isAllowed('64:ff9b:1:0:7f:0:100:0')).to.equal(false);
  });

  it('refuses an ISATAP interface id carrying a blocked IPv4 inside a public prefix (defence in depth)', () => {
    expect(policy.isAllowed('2606:4700::5efe:7f00:1')).to.equal(false);
    expect(policy.isAllowed('2606:4700::200:5efe:a9fe:a9fe')).to.equal(false);
  });

  it('checks the embedded IPv4 even when the allow list exempts the whole IPv6 prefix', () => {
    const exempt = new AddressPolicy({ allowCidrs: ['64:ff9b::/96', '2002::/16', '::ffff:0:0/96'] });
    expect(exempt.isAllowed('64:ff9b::a9fe:a9fe')).to.equal(false);
    expect(exempt.isAllowed('2002:0a00:0001::')).to.equal(false);
    expect(exempt.isAllowed('::ffff:192.168.0.1')).to.equal(false);
    expect(exempt.isAllowed('64:ff9b::808:808')).to.equal(true);
  });
});

describe('address policy: public addresses pass', () => {
  const policy = new AddressPolicy();
  for (const address of ['8.8.8.8', '1.1.1.1', '93.184.216.34', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e', '151.101.1.69']) {
    it(`allows ${address}`, () => expect(policy.isAllowed(address)).to.equal(true));
  }
  it('refuses text that is not an address at all (fail closed)', () => {
    for (const s of ['', 'localhost', '0177.0.0.1', '127.1', '::ffff:127.1', 'fe80::1%']) expect(policy.isAllowed(s), s).to.equal(false);
  });
});

describe('address policy: REMOTE_IMAGE_ALLOW_CIDRS exempts exactly the listed addresses', () => {
  const policy = new AddressPolicy({ allowCidrs: ['127.0.0.1/32'] });

  it('exempts 127.0.0.1 and nothing else of 127.0.0.0/8', () => {
    expect(policy.isAllowed('127.0.0.1')).to.equal(true);
    expect(policy.isAllowed('127.0.0.2')).to.equal(false);
    expect(policy.isAllowed('0.0.0.0')).to.equal(false);
  });

  it('does not exempt IPv6 spellings of 127.0.0.1 (the exemption is for the address as connected, in its own family)', () => {
    for (const s of ['::ffff:127.0.0.1', '::127.0.0.1', '::ffff:0:7f00:1', '64:ff9b::7f00:1', '2002:7f00:1::', '::1']) {
      expect(policy.isAllowed(s), s).to.equal(false);
    }
  });

  it('exempts an IPv4-mapped address only when both its IPv6 and its IPv4 form are listed', () => {
    expect(new AddressPolicy({ allowCidrs: ['::ffff:127.0.0.1/128'] }).isAllowed('::ffff:127.0.0.1')).to.equal(false);
    expect(new AddressPolicy({ allowCidrs: ['::ffff:127.0.0.1/128', '127.0.0.1/32'] }).isAllowed('::ffff:127.0.0.1')).to.equal(true);
  });

  it('exempts ::1 when ::1/128 is listed', () => {
    expect(new AddressPolicy({ allowCidrs: ['::1/128'] }).isAllowed('::1')).to.equal(true);
  });

  it('rejects a malformed allow entry at construction', () => {
    expect(() => new AddressPolicy({ allowCidrs: ['127.0.0.1'] })).to.throw(TypeError);
  });
});

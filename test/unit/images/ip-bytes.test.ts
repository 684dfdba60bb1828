import { expect } from 'chai';
import { cidrContains, formatIp, parseCidr, parseIp, parseIpv4, parseIpv6 } from '../../../src/images/ip-bytes.ts';

const hex = (b: Buffer | null): string | null => (b === null ? null : b.toString('hex'));

describe('address parsing to bytes: addresses compare as bytes, never as strings (R22)', () => {
  it('reads every spelling of one IPv6 address to the same 16 bytes', () => {
    const loopback = '00000000000000000000000000000001';
    for (const s of ['::1', '0:0:0:0:0:0:0:1', '0000:0000:0000:0000:0000:0000:0000:0001', '0::1', '::0:1', '0:0::0:1', '[::1]', '::0.0.0.1']) {
      expect(hex(parseIpv6(s)), s).to.equal(loopback);
    }
    const mapped = '00000000000000000000ffff7f000001';
    for (const s of ['::ffff:127.0.0.1', '::FFFF:7F00:1', '::ffff:7f00:0001', '0:0:0:0:0:ffff:127.0.0.1', '[::ffff:7f00:1]']) {
      expect(hex(parseIpv6(s)), s).to.equal(mapped);
    }
  });

  it('drops a zone id, which does not change the network of the address', () => {
    expect(hex(parseIpv6('fe80::1%eth0'))).to.equal('fe800000000000000000000000000001');
  });

  it('refuses malformed IPv6 text rather than guessing', () => {
    for (const s of ['', ':', ':::', '1::2::3', '1:2:3:4:5:6:7:8:9', '1:2:3:4:5:6:7', '12345::', 'g::1', '::1.2.3', '1.2.3.4::', '::ffff:127.1', '[::1']) {
      expect(parseIpv6(s), s).to.equal(null);
    }
  });

  it('reads only strict dotted quads as IPv4 (leading zeros are ambiguous and refused)', () => {
    expect(hex(parseIpv4('169.254.169.254'))).to.equal('a9fea9fe');
    for (const s of ['127.1', '0177.0.0.1', '0x7f.0.0.1', '256.0.0.1', '1.2.3.4.5', '1.2.3.', ' 1.2.3.4', '2130706433']) {
      expect(parseIpv4(s), s).to.equal(null);
    }
    expect(parseIp('not-an-address')).to.equal(null);
  });

  it('formats the checked bytes back into a form the socket accepts', () => {
    expect(formatIp(parseIp('10.1.2.3') as Buffer)).to.equal('10.1.2.3');
    expect(formatIp(parseIp('2606:4700:4700::1111') as Buffer)).to.equal('2606:4700:4700:0:0:0:0:1111');
  });

  it('matches prefixes bit by bit, within one family only', () => {
    const cgnat = parseCidr('100.64.0.0/10');
    expect(cidrContains(cgnat, parseIp('100.127.255.255') as Buffer)).to.equal(true);
    expect(cidrContains(cgnat, parseIp('100.128.0.0') as Buffer)).to.equal(false);
    expect(cidrContains(parseCidr('::/0'), parseIp('1.2.3.4') as Buffer)).to.equal(false);
    expect(() => parseCidr('10.0.0.0/33')).to.throw(TypeError);
    expect(() => parseCidr('10.0.0.0')).to.throw(TypeError);
  });
});

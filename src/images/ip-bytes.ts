// Addresses as bytes (R22): every check compares 4- or 16-byte
// buffers, never the string forms, which have too many spellings.

/** Parses a strict dotted-quad IPv4 address (no leading zeros, no short forms). */
export function parseIpv4(text: string): Buffer | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  const bytes = Buffer.alloc(4);
  for (const [i, part] of parts.entries()) {
    // A leading zero is ambiguous (octal or decimal): refuse it rather than guess.
    if (!/^(0|[1-9]\d{0,2})$/.test(part)) return null;
    const value = Number(part);
    if (value > 255) return null;
    bytes[i] = value;
  }
  return bytes;
}

/**
 * Parses an IPv6 address in any RFC 4291 spelling: zero compression, upper or
 * lower case, a dotted IPv4 tail, optional brackets and zone id (the zone is
 * dropped: it does not change which network the address belongs to).
 */
export function parseIpv6(text: string): Buffer | null {
  let s = text;
  if (s.startsWith('[') && s.endsWith(']')) s = s.slice(1, -1);
  const zone = s.indexOf('%');
  if (zone !== -1) s = s.slice(0, zone);
  if (s === '' || s.includes(':::')) return null;
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const words: number[][] = [];
  for (const [h, half] of halves.entries()) {
    const out: number[] = [];
    const groups = half === '' ? [] : half.split(':');
    for (const [g, group] of groups.entries()) {
      const last = h === halves.length - 1 && g === groups.length - 1;
      if (last && group.includes('.')) {
        const v4 = parseIpv4(group);
        if (v4 === null) return null;
        out.push(v4.readUInt16BE(0), v4.readUInt16BE(2));
      } else if (/^[0-9a-fA-F]{1,4}$/.test(group)) {
        out.push(parseInt(group, 16));
      } else {
        return null;
      }
    }
    words.push(out);
  }
  const head = words[0] ?? [];
  const tail = words[1] ?? [];
  const count = head.length + tail.length;
  if (halves.length === 1 ? count !== 8 : count > 7) return null;
  const all = [...head, ...new Array<number>(8 - count).fill(0), ...tail];
  const bytes = Buffer.alloc(16);
  all.forEach((word, i) => bytes.writeUInt16BE(word, i * 2));
  return bytes;
}

/** IPv4 or IPv6 text to 4 or 16 bytes; null when it is neither. */
export function parseIp(text: string): Buffer | null {
  return parseIpv4(text) ?? (text.includes(':') ? parseIpv6(text) : null);
}

/** The textual form handed to the socket: produced from the checked bytes. */
export function formatIp(bytes: Buffer): string {
  if (bytes.length === 4) return Array.from(bytes).join('.');
  const words: string[] = [];
  for (let i = 0; i < 16; i += 2) words.push(bytes.readUInt16BE(i).toString(16));
  return words.join(':');
}

export interface Cidr {
  readonly bytes: Buffer;
  readonly bits: number;
}

/** Parses `address/bits`; throws on anything else (operator input or the committed list). */
export function parseCidr(text: string): Cidr {
  const [address, bits, ...rest] = text.trim().split('/');
  const bytes = address === undefined ? null : parseIp(address);
  const max = bytes?.length === 4 ? 32 : 128;
  if (bytes === null || rest.length > 0 || bits === undefined || !/^\d{1,3}$/.test(bits) || Number(bits) > max) {
    throw new TypeError(`Invalid CIDR: ${text}`);
  }
  return { bytes, bits: Number(bits) };
}

/** True when `address` has the same family as `cidr` and its first `bits` bits match. */
export function cidrContains(cidr: Cidr, address: Buffer): boolean {
  if (cidr.bytes.length !== address.length) return false;
  const whole = cidr.bits >> 3;
  if (!cidr.bytes.subarray(0, whole).equals(address.subarray(0, whole))) return false;
  const rem = cidr.bits & 7;
  if (rem === 0) return true;
  const mask = (0xff << (8 - rem)) & 0xff;
  return ((cidr.bytes[whole] ?? 0) & mask) === ((address[whole] ?? 0) & mask);
}

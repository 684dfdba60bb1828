// Which addresses an image fetch may connect to (spec 4.1 rule 1, R22, R23).
// Every range of blocked-ranges.json is refused, `must` and `should` alike, and so is
// every IPv4 address carried inside an IPv6 one, whatever the JSON says of the prefix.
import blockedRanges from './blocked-ranges.json' with { type: 'json' };
import { cidrContains, parseCidr, parseIp } from './ip-bytes.ts';
import type { Cidr } from './ip-bytes.ts';

interface BlockedRangeEntry {
  readonly cidr: string;
  readonly family: string;
  readonly level: string;
}

export const BLOCKED_RANGES: readonly BlockedRangeEntry[] = blockedRanges;

// Outside 2000::/3 nothing is allocated as global unicast (RFC 4291 s2.4, the note on
// ::/8 in blocked-ranges.json): refusing the rest of the space costs no real image host.
const GLOBAL_UNICAST_V6 = parseCidr('2000::/3');

const bytesOf = (hex: string): Buffer => Buffer.from(hex.replace(/\s/g, ''), 'hex');
const NAT64_WKP = bytesOf('0064 ff9b 0000 0000 0000 0000');
const NAT64_LOCAL = bytesOf('0064 ff9b 0001');
const SIIT = bytesOf('0000 0000 0000 0000 ffff 0000');
const MAPPED = bytesOf('0000 0000 0000 0000 0000 ffff');
const COMPAT = Buffer.alloc(12);
const SIX_TO_FOUR = bytesOf('2002');
const TEREDO = bytesOf('2001 0000');
const ISATAP_IDS = [bytesOf('0000 5efe'), bytesOf('0200 5efe')];

const pick = (b: Buffer, ...idx: number[]): Buffer => Buffer.from(idx.map((i) => b[i] ?? 0));
const startsWith = (b: Buffer, prefix: Buffer): boolean => b.subarray(0, prefix.length).equals(prefix);

/**
 * Every IPv4 address an IPv6 address carries in a known translation or tunnel form:
 * mapped, compatible, SIIT, NAT64 (well-known and local-use, all RFC 6052 layouts),
 * 6to4, Teredo (server and de-obfuscated client) and ISATAP interface ids.
 */
function embeddedIpv4s(v6: Buffer): Buffer[] {
  const found: Buffer[] = [];
  const last32 = v6.subarray(12, 16);
  // :: and ::1 are the unspecified and loopback addresses, not compatible ones
  // (RFC 4291 s2.5.5.1); both are refused in their own right.
  const compatible = startsWith(v6, COMPAT) && last32.readUInt32BE(0) > 1;
  if (startsWith(v6, MAPPED) || compatible || startsWith(v6, SIIT) || startsWith(v6, NAT64_WKP)) {
    found.push(Buffer.from(last32));
  }
  if (startsWith(v6, NAT64_LOCAL)) {
    // RFC 6052 s2.2: the IPv4 bits skip octet 8 (bits 64-71) for prefixes /48, /56, /64.
    found.push(pick(v6, 6, 7, 9, 10), pick(v6, 7, 9, 10, 11), pick(v6, 9, 10, 11, 12), Buffer.from(last32));
  }
  if (startsWith(v6, SIX_TO_FOUR)) found.push(pick(v6, 2, 3, 4, 5));
  if (startsWith(v6, TEREDO)) {
    found.push(pick(v6, 4, 5, 6, 7), Buffer.from(last32.map((x) => x ^ 0xff)));
  }
  const iid = v6.subarray(8, 12);
  if (ISATAP_IDS.some((id) => iid.equals(id))) found.push(Buffer.from(last32));
  return found;
}

interface AddressPolicyOptions {
  /** REMOTE_IMAGE_ALLOW_CIDRS: ranges exempt from the block, for local tests only. */
  readonly allowCidrs?: readonly string[];
  /** IMAGE_ALLOWED_PORTS: ports image URLs may name besides 80 and 443. */
  readonly extraPorts?: readonly number[];
}

/** The ports of the web: an image URL naming any other is refused, so that the fetcher is no port scanner. */
const DEFAULT_IMAGE_PORTS: readonly number[] = [80, 443];

/**
 * Decides on one address as bytes. An address is allowed only if every view of it
 * (the address itself and each IPv4 address embedded in it) is either outside the
 * blocked ranges or inside an allow CIDR of that view's own family. So 127.0.0.1/32
 * exempts 127.0.0.1, never ::ffff:127.0.0.1 or 2002:7f00:1:: (documented choice:
 * the exemption is for the exact address an operator listed).
 */
export class AddressPolicy {
  readonly #blocked: readonly Cidr[];
  readonly #allowed: readonly Cidr[];
  readonly #ports: ReadonlySet<number>;

  constructor(options: AddressPolicyOptions = {}) {
    this.#blocked = BLOCKED_RANGES.map((r) => parseCidr(r.cidr));
    this.#allowed = (options.allowCidrs ?? []).map((c) => parseCidr(c));
    this.#ports = new Set([...DEFAULT_IMAGE_PORTS, ...(options.extraPorts ?? [])]);
  }

  /** True when some address is exempt (REMOTE_IMAGE_ALLOW_CIDRS is set): a port can then be judged only with the address. */
  get hasExemptions(): boolean {
    return this.#allowed.length > 0;
  }

  /**
   * Whether a URL may name `port`: 80, 443 and IMAGE_ALLOWED_PORTS always; any port when the
   * address (`bytes`, once known) lies in an allow CIDR, the exemption local tests rely on.
   */
  isPortAllowed(port: number, bytes?: Buffer): boolean {
    if (this.#ports.has(port)) return true;
    return bytes !== undefined && this.#allowed.some((c) => cidrContains(c, bytes));
  }

  /** Text form (resolver answer or URL host); anything unparsable is refused. */
  isAllowed(address: string): boolean {
    const bytes = parseIp(address);
    return bytes !== null && this.isAllowedBytes(bytes);
  }

  isAllowedBytes(bytes: Buffer): boolean {
    if (bytes.length !== 4 && bytes.length !== 16) return false;
    const views = bytes.length === 16 ? [bytes, ...embeddedIpv4s(bytes)] : [bytes];
    return views.every((view) => this.#viewAllowed(view));
  }

  #viewAllowed(view: Buffer): boolean {
    if (this.#allowed.some((c) => cidrContains(c, view))) return true;
    if (view.length === 16 && !cidrContains(GLOBAL_UNICAST_V6, view)) return false;
    return !this.#blocked.some((c) => cidrContains(c, view));
  }
}

// Static checks of one image URL, run on the request's URLs and again on every
// redirect target before anything touches the network (spec 4.1, R22).
import { rejected } from './image-fetch-error.ts';
import { parseIpv4, parseIpv6 } from './ip-bytes.ts';

export interface ImageTarget {
  readonly url: URL;
  readonly https: boolean;
  readonly port: number;
  /** Host name without trailing dots, for the resolver and TLS SNI; absent for IP literals. */
  readonly hostname: string | undefined;
  /** The literal address when the host is an IP literal (no resolver involved). */
  readonly literal: Buffer | undefined;
}

// Names that RFC 6761/6762/7686/8375 and ICANN (.internal, 2024) reserve for local or
// non-DNS use: they can only lead inward. A single-label name resolves through the
// search list, also inward. Refused by name, whatever the resolver would answer.
const LOCAL_SUFFIXES = ['localhost', 'local', 'localdomain', 'internal', 'arpa', 'onion', 'home', 'lan', 'intranet'];

function checkName(name: string): void {
  const labels = name.split('.');
  const top = labels[labels.length - 1] ?? '';
  if (labels.length < 2 || LOCAL_SUFFIXES.includes(top) || name.endsWith('.home.arpa')) throw rejected('blocked_name');
}

/** Parses with WHATWG URL and checks scheme, userinfo, port and host shape. */
export function toImageTarget(input: string | URL, base?: URL): ImageTarget {
  let url: URL;
  try {
    url = typeof input === 'string' ? new URL(input, base) : new URL(input.href);
  } catch {
    throw rejected('invalid_url');
  }
  // Checked here, not left to a client: some answer data: or file: URLs by themselves.
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw rejected('bad_scheme');
  // Credentials are never sent, and userinfo is a classic way to disguise the host.
  if (url.username !== '' || url.password !== '') throw rejected('userinfo');
  const https = url.protocol === 'https:';
  const port = url.port === '' ? (https ? 443 : 80) : Number(url.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw rejected('bad_port');
  url.hash = '';

  const host = url.hostname;
  if (host.startsWith('[')) {
    const literal = parseIpv6(host);
    if (literal === null) throw rejected('invalid_url');
    return { url, https, port, hostname: undefined, literal };
  }
  const name = host.replace(/\.+$/, '');
  if (name === '') throw rejected('invalid_url');
  // WHATWG has already turned every numeric spelling (octal, hex, short forms,
  // full-width dots) into a dotted quad; a host it left as a name is a name.
  const literal = parseIpv4(name);
  if (literal !== null) return { url, https, port, hostname: undefined, literal };
  checkName(name);
  return { url, https, port, hostname: name, literal: undefined };
}

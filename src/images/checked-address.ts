// Where a hop may connect (spec 4.1, R22): IP literals are checked as they are; names are
// resolved once, every answer is checked as bytes, and the first answer is the only
// address the socket will see (no second resolution, no rebinding window).
//
// R50: names are resolved by c-ares (dns.promises.Resolver), which works on sockets of the
// event loop, never by dns.lookup (getaddrinfo), which holds one of libuv's few threads for as
// long as the nameserver keeps it waiting: threads that sharp's decoding, file access and the
// database driver share. A nameserver that never answers then costs the request that asked
// its image deadline, and nobody else anything: the query is bounded by its own timeout and
// tries, and cancelled outright (resolver.cancel()) when the image's deadline passes.
// c-ares does not read /etc/hosts for these queries, by choice: image hosts are strangers'
// names on the public DNS, and /etc/hosts holds the local names an attacker would aim at
// (`localhost` and local suffixes are refused by name before any lookup, image-url.ts).
import { CANCELLED, Resolver } from 'node:dns/promises';
import type { AddressPolicy } from './address-policy.ts';
import { rejected, unavailable } from './image-fetch-error.ts';
import type { ImageTarget } from './image-url.ts';
import { formatIp, parseIp } from './ip-bytes.ts';
import { ABORTED } from './http-get.ts';

export interface ResolvedAddress {
  readonly address: string;
  readonly family?: number;
}

/**
 * Resolves a host name once; `signal` is the image's deadline (a resolver should stop its
 * queries when it aborts). The default is caresResolver().
 */
export type HostResolver = (hostname: string, signal?: AbortSignal) => Promise<readonly ResolvedAddress[]>;

export interface CaresResolverOptions {
  /** c-ares' first timeout of one query, in milliseconds (it grows on each try). */
  readonly timeoutMs?: number;
  /** Attempts per nameserver. */
  readonly tries?: number;
  /** Nameservers (`host` or `host:port`) instead of /etc/resolv.conf's; for tests. */
  readonly servers?: readonly string[];
}

/**
 * Once the A query has answered, how long the AAAA query may still take. A nameserver that
 * drops AAAA queries (there are such) must not cost every image the whole c-ares timeout; the
 * addresses not waited for are never used, since the socket goes to the first checked one,
 * which is IPv4 whenever there is one. Only an IPv4 answer starts the grace: an IPv6 answer
 * that came first does not cut off a slower A answer, or an IPv4-only network (many container
 * networks) would be sent to an address it cannot reach (R22: a public image is fetched).
 */
const OTHER_FAMILY_GRACE_MS = 250;

/** What c-ares rejects a cancelled query with (resolver.cancel()): code ECANCELLED. */
function cancelled(hostname: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`queryA ${CANCELLED} ${hostname}`), { code: CANCELLED, syscall: 'queryA', hostname });
}

/**
 * A and AAAA through c-ares, asked together, IPv4 answers first. A name with neither is a DNS
 * failure (the error of the A query). One channel per resolution, so that cancelling it on the
 * deadline stops exactly that resolution's queries.
 */
export function caresResolver(options: CaresResolverOptions = {}): HostResolver {
  const channel = { timeout: options.timeoutMs ?? 1_500, tries: options.tries ?? 2 };
  return async (hostname, signal) => {
    // A deadline that has passed already sends no query at all: an 'abort' listener added now
    // would never fire, and cancel() stops only the queries in flight, so queries sent after it
    // would run on to c-ares' own timeouts and tries (R50). The outcome is the one a cancelled
    // resolution has.
    if (signal?.aborted) throw cancelled(hostname);
    // From the check above to the queries below nothing waits, so no abort can fall in between
    // unseen: the listener is in place before the first query leaves.
    const resolver = new Resolver(channel);
    if (options.servers !== undefined) resolver.setServers([...options.servers]);
    const cancel = (): void => resolver.cancel();
    signal?.addEventListener('abort', cancel, { once: true });
    let grace: NodeJS.Timeout | undefined;
    try {
      const queries = [resolver.resolve4(hostname), resolver.resolve6(hostname)] as const;
      queries[0].then(
        (answers) => {
          if (answers.length > 0) grace = setTimeout(cancel, OTHER_FAMILY_GRACE_MS);
        },
        () => undefined,
      );
      const [v4, v6] = await Promise.allSettled(queries);
      const answers: ResolvedAddress[] = [
        ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 })) : []),
        ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 })) : []),
      ];
      if (answers.length === 0) throw v4.status === 'rejected' ? v4.reason : new Error('no address for the image host');
      return answers;
    } finally {
      clearTimeout(grace);
      signal?.removeEventListener('abort', cancel);
    }
  };
}

export const defaultResolver: HostResolver = caresResolver();

interface CheckedAddress {
  /** Formatted from the checked bytes, so the socket gets exactly what was checked. */
  readonly address: string;
  readonly family: 4 | 6;
}

// Rejects with ABORTED when the signal aborts, so that a resolver that never
// answers cannot outlive the image's deadline.
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (signal.aborted) return reject(ABORTED);
    const onAbort = (): void => reject(ABORTED);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

export async function checkedAddress(
  target: ImageTarget,
  policy: AddressPolicy,
  resolver: HostResolver,
  signal: AbortSignal,
): Promise<CheckedAddress> {
  let bytes = target.literal;
  if (bytes === undefined) {
    let answers: readonly ResolvedAddress[];
    try {
      answers = await untilAborted(Promise.resolve().then(() => resolver(target.hostname ?? '', signal)), signal);
    } catch (error) {
      if (error === ABORTED) throw error;
      // R23: a DNS failure is 503; the resolver's message (it names the host) is dropped.
      throw unavailable('dns_failure');
    }
    if (!Array.isArray(answers) || answers.length === 0) throw unavailable('dns_failure');
    // A mixed answer is refused as a whole: any of its addresses could be the one used.
    const parsed = answers.map((a: ResolvedAddress) => (typeof a?.address === 'string' ? parseIp(a.address) : null));
    if (parsed.some((b) => b === null || !policy.isAllowedBytes(b))) throw rejected('blocked_address');
    bytes = parsed[0] as Buffer;
  } else if (!policy.isAllowedBytes(bytes)) {
    throw rejected('blocked_address');
  }
  // The port, judged with the address the socket will use (an allow CIDR exempts it), on every hop.
  if (!policy.isPortAllowed(target.port, bytes)) throw rejected('bad_port');
  return { address: formatIp(bytes), family: bytes.length === 4 ? 4 : 6 };
}

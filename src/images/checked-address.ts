// Where a hop may connect (issue 3): IP literals are checked as they are; names are
// resolved once, every answer is checked as bytes, and the first answer is the only
// address the socket will see (no second resolution, no rebinding window).
import { promises as dns } from 'node:dns';
import type { AddressPolicy } from './address-policy.ts';
import { rejected, unavailable } from './image-fetch-error.ts';
import type { ImageTarget } from './image-url.ts';
import { formatIp, parseIp } from './ip-bytes.ts';
import { ABORTED } from './http-get.ts';

export interface ResolvedAddress {
  readonly address: string;
  readonly family?: number;
}

/** Resolves a host name once; the default is dns.promises.lookup(host, { all: true, verbatim: true }). */
export type HostResolver = (hostname: string) => Promise<readonly ResolvedAddress[]>;

export const defaultResolver: HostResolver = (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

export interface CheckedAddress {
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
      answers = await untilAborted(Promise.resolve().then(() => resolver(target.hostname ?? '')), signal);
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
  return { address: formatIp(bytes), family: bytes.length === 4 ? 4 : 6 };
}

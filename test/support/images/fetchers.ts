// Fetchers with test-sized limits, and resolvers that never touch real DNS.
import { HttpImageFetcher } from '../../../src/images/index.ts';
import type { HostResolver, HttpImageFetcherOptions, ResolvedAddress } from '../../../src/images/index.ts';

export const LOCAL_ALLOW = ['127.0.0.1/32'];

export function localFetcher(options: Partial<HttpImageFetcherOptions> = {}): HttpImageFetcher {
  return new HttpImageFetcher({
    maxBytes: 64 * 1024,
    timeoutMs: 2_000,
    maxRedirects: 3,
    concurrency: 4,
    maxBytesInFlight: 1024 * 1024,
    allowCidrs: LOCAL_ALLOW,
    resolver: tableResolver({ 'img.test': ['127.0.0.1'] }),
    ...options,
  });
}

/** Answers from a table; any other name fails the way getaddrinfo does (ENOTFOUND). */
export function tableResolver(table: Record<string, readonly string[]>, calls: string[] = []): HostResolver {
  return async (hostname) => {
    calls.push(hostname);
    const answer = table[hostname];
    if (answer === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return answer.map((address): ResolvedAddress => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

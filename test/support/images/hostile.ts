// Shared set-up of the hostile-URL files: guards on the ports the URLs name,
// a spy on every outgoing connection, and a resolver that never leaves the process.
import { expect } from 'chai';
import { HttpImageFetcher } from '../../../src/images/index.ts';
import type { HostResolver } from '../../../src/images/index.ts';
import { spyOnConnections } from './connection-spy.ts';
import type { ConnectionSpy } from './connection-spy.ts';
import { PortGuard } from './port-guard.ts';
import { namedPorts } from '../hostile-urls.ts';

/** Set by the namespace wrapper: only loopback exists, so real DNS cannot answer. */
export const IN_NETNS = process.env.IMAGES_NETNS === '1';

export const COMMON_PORTS = [80, 443, 1900, 2375, 6379, 8080, 8443, 9200];

export function portsOf(urls: readonly string[]): number[] {
  return [...new Set([...COMMON_PORTS, ...namedPorts(urls)])];
}

export function hostileFetcher(resolver: HostResolver | undefined, allowCidrs: readonly string[] = []): HttpImageFetcher {
  return new HttpImageFetcher({
    maxBytes: 1024 * 1024,
    timeoutMs: 3000,
    maxRedirects: 3,
    allowCidrs,
    ...(resolver === undefined ? {} : { resolver }),
  });
}

/** Installs the guards around a describe block; `check()` asserts nothing connected. */
export function guardConnections(urls: readonly string[]): { check: () => Promise<void> } {
  let guard: PortGuard;
  let spy: ConnectionSpy;
  before(async () => {
    guard = await new PortGuard().listen(portsOf(urls));
    // In the namespace every port is free; a port we could not guard there is a test bug.
    if (IN_NETNS) expect(guard.unguarded, 'ports not guarded').to.deep.equal([]);
    spy = spyOnConnections();
  });
  after(async () => {
    spy.restore();
    await guard.close();
  });
  return {
    check: async () => {
      await new Promise((r) => setImmediate(r));
      expect(spy.attempts, 'outgoing connection attempts').to.deep.equal([]);
      expect(guard.seen, 'connections seen by the port guards').to.deep.equal([]);
    },
  };
}

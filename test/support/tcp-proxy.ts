// A small TCP fault proxy for fail-closed tests: the service talks to
// PostgreSQL or Redis through it.
// - cut(): drops every open connection and refuses new ones (a server that went away);
// - blackhole(): a network partition. Open connections stay open but forward nothing, in either
//   direction, for good; new connections are accepted and forward nothing either. Nobody is told
//   anything, so only the client's own timeouts can end its waits (ruling R33);
// - blackholeWhen(...markers): the same partition, starting at the moment a client sends bytes
//   that contain a marker (a statement's text or its prepared-statement name: on a server, a
//   named statement's text crosses once per connection and its name on every execution; the
//   embedded database gets unnamed statements), which are not forwarded: the request is caught
//   exactly at the step that sends that statement;
// - restore(): new connections pass again. Connections that were blackholed stay dead, as after
//   a partition that lost the connection state: the client has to notice and open new ones.
//   (The proxy closes their server side at once: the server would time them out by itself, and
//   the embedded database has few connection slots.)
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface TcpProxy {
  readonly port: number;
  cut(): void;
  blackhole(): void;
  /** Arms a partition that starts when a client sends any of `markers`; resolves when it has started. */
  blackholeWhen(...markers: string[]): Promise<void>;
  restore(): void;
  /** New connections go to this server from now on; open ones stay where they are (a failover behind one endpoint). */
  retarget(host: string, port: number): void;
  close(): Promise<void>;
}

interface Link {
  client: Socket;
  upstream: Socket | undefined;
  dead: boolean;
}

/** `listenHost`: where the proxy listens (loopback by default; `::1` for a client that connects over IPv6). */
export async function startTcpProxy(initialHost: string, initialPort: number, listenHost = '127.0.0.1'): Promise<TcpProxy> {
  let [targetHost, targetPort] = [initialHost, initialPort];
  const links = new Set<Link>();
  let mode: 'pass' | 'refuse' | 'blackhole' = 'pass';
  let trigger: { markers: Buffer[]; started: () => void } | undefined;

  const drop = (link: Link) => {
    links.delete(link);
    link.client.destroy();
    link.upstream?.destroy();
  };
  const partition = () => {
    mode = 'blackhole';
    for (const link of links) {
      link.dead = true;
      // The server's side is closed (it would time the connection out itself; and the embedded
      // database has few connection slots); the client is told nothing.
      link.upstream?.destroy();
    }
  };

  const server: Server = createServer((client) => {
    if (mode === 'refuse') {
      client.destroy();
      return;
    }
    const link: Link = { client, upstream: undefined, dead: mode === 'blackhole' };
    links.add(link);
    client.on('error', () => drop(link));
    client.on('close', () => drop(link));
    if (link.dead) return; // accepted, and nothing will ever be forwarded
    const upstream = connect(targetPort, targetHost);
    link.upstream = upstream;
    upstream.on('error', () => link.dead || drop(link));
    upstream.on('close', () => link.dead || drop(link));
    upstream.on('data', (chunk: Buffer) => {
      if (!link.dead) client.write(chunk);
    });
    client.on('data', (chunk: Buffer) => {
      if (link.dead) return;
      if (trigger?.markers.some((marker) => chunk.includes(marker))) {
        const { started } = trigger;
        trigger = undefined;
        partition();
        started();
        return;
      }
      upstream.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, listenHost, resolve));

  const cut = () => {
    mode = 'refuse';
    for (const link of [...links]) drop(link);
  };
  return {
    port: (server.address() as AddressInfo).port,
    cut,
    blackhole: partition,
    blackholeWhen(...markers: string[]) {
      return new Promise<void>((resolve) => {
        trigger = { markers: markers.map((marker) => Buffer.from(marker)), started: resolve };
      });
    },
    restore() {
      mode = 'pass';
      trigger = undefined;
    },
    retarget(host: string, port: number) {
      [targetHost, targetPort] = [host, port];
    },
    close() {
      cut();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** The same connection string, through the proxy. */
export function viaProxy(url: string, proxy: Pick<TcpProxy, 'port'>): string {
  const parsed = new URL(url);
  parsed.hostname = '127.0.0.1';
  parsed.port = String(proxy.port);
  return parsed.toString();
}

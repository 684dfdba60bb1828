// TCP listeners on the ports hostile URLs name, bound dual-stack on [::] so that
// they catch 127.0.0.0/8, 0.0.0.0, ::1 and [::] alike. They count connections;
// a test asserts they saw none. In the main network namespace a port may be taken
// by someone else: it is then reported as not guarded.
import net from 'node:net';

export class PortGuard {
  readonly seen: string[] = [];
  readonly guarded: number[] = [];
  readonly unguarded: number[] = [];
  readonly #servers: net.Server[] = [];

  async listen(ports: Iterable<number>): Promise<this> {
    for (const port of new Set(ports)) {
      const server = net.createServer((socket) => {
        this.seen.push(`${socket.localAddress}:${socket.localPort}`);
        socket.destroy();
      });
      const ok = await new Promise<boolean>((resolve) => {
        server.once('error', () => resolve(false));
        server.listen({ host: '::', port, ipv6Only: false }, () => resolve(true));
      });
      if (ok) {
        this.#servers.push(server);
        this.guarded.push(port);
      } else {
        this.unguarded.push(port);
      }
    }
    return this;
  }

  async close(): Promise<void> {
    await Promise.all(this.#servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  }
}

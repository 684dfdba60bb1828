// The test run's loopback TCP door to its own embedded database. R49 gives the embedded
// database no TCP port, only a Unix socket in DATA_DIR; yet the suite puts TCP fault proxies in
// front of its database (R33) and forwards its port into network namespaces. `npm test` (and
// only `npm test`, on a throwaway database in a fresh temporary directory) relays a loopback
// port to that socket. The service itself never opens one: test/integration/db/embedded-socket-only.test.ts.
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

export interface LoopbackRelay {
  port: number;
  close(): Promise<void>;
}

export async function startLoopbackRelay(socketPath: string): Promise<LoopbackRelay> {
  const open = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect({ path: socketPath });
    for (const [socket, other] of [[client, upstream], [upstream, client]] as const) {
      open.add(socket);
      socket.on('close', () => {
        open.delete(socket);
        other.destroy();
      });
      socket.on('error', () => other.destroy());
    }
    client.setNoDelay(true);
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0 }, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

// A TCP server on 127.0.0.1 that answers the first request bytes with whatever a
// test writes: for responses no well-behaved HTTP server would send.
import net from 'node:net';

export async function rawServer(answer: (socket: net.Socket, request: string) => void): Promise<{ url: string; close: () => Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.once('data', (data: Buffer) => answer(socket, data.toString('latin1')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/img.png`,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}


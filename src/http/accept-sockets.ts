// The API port as several listening sockets feeding one HTTP server (R37, R51, R52).
//
// Why: a Node process takes new connections off the kernel's accept queue one per readiness
// event of a listening socket, so one per event-loop turn (libuv's uv__server_io calls accept()
// once and returns). An idle process turns its loop thousands of times a second; a saturated
// one, a few hundred (each turn runs every callback that became ready). When many clients
// connect at once under load (a client pool growing during an overload, a load balancer
// failing over, every client reconnecting after a restart), the new connections then wait in
// the accept queue for one turn each, invisible to admission control: measured at twice the
// capacity, open loop, 300-600 new connections waited up to 1-2 s there, so a refusal that
// costs microseconds reached its client after a second. With ACCEPT_SOCKETS sockets bound to the
// same port (SO_REUSEPORT: the kernel spreads new connections over them), a turn accepts up to
// that many connections: the same run then answered its refusals within 35 ms at p99.
//
// Everything else stays with the one HTTP server: its timeouts (R51), its keep-alive handling,
// draining (R35). The other sockets hand each connection to it ('connection', as node:http
// documents for injected connections). MAX_CONNECTIONS bounds the connections of all sockets
// together.
//
// SO_REUSEPORT would let a second process of the same user bind the same port and silently share
// its traffic. So the port is first bound by a plain socket: if it is in use, the start fails
// with EADDRINUSE exactly as with one socket; then that probe is closed and the shared sockets
// take the port (for PORT=0, the port the probe got).
import type { Server as HttpServer } from 'node:http';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/** Listening sockets on Linux (elsewhere SO_REUSEPORT does not spread connections: one). */
const ACCEPT_SOCKETS = process.platform === 'linux' ? 8 : 1;

interface AcceptOptions {
  port: number;
  host: string;
  /** LISTEN_BACKLOG, per socket (R37). */
  backlog: number;
  /** MAX_CONNECTIONS, for all sockets together (R51). */
  maxConnections: number;
  /**
   * A listening socket failed to accept a connection (EMFILE, ENFILE, ENOBUFS: out of file
   * descriptors or memory). The kernel's connection is already dropped and the socket keeps
   * listening; without a listener node would throw the error and end the process.
   */
  onAcceptError: (error: NodeJS.ErrnoException) => void;
  /** A connection was closed at once, unanswered, because MAX_CONNECTIONS were open (R51). */
  onRefused: () => void;
}

export interface AcceptSockets {
  readonly address: AddressInfo;
  /** Open client connections, whichever socket accepted them. */
  connections(): number;
  /** Stops accepting on every socket; resolves when every connection has ended. */
  close(): Promise<void>;
}

export async function listenOnAcceptSockets(server: HttpServer, options: AcceptOptions): Promise<AcceptSockets> {
  const shared = ACCEPT_SOCKETS > 1;
  const port = shared ? await claimPort(options) : options.port;
  await listen(server, { port, host: options.host, backlog: options.backlog, reusePort: shared });
  server.on('error', options.onAcceptError);
  // node closes a connection past its maxConnections itself, and says so ('drop').
  server.on('drop', options.onRefused);
  const address = server.address() as AddressInfo;

  // Connections accepted by the other sockets: the HTTP server's own socket may hold only
  // what is left of MAX_CONNECTIONS (node checks its maxConnections before accepting).
  let others = 0;
  // Every open connection, whichever socket accepted it.
  let all = 0;
  server.on('connection', (connection: Socket) => {
    all += 1;
    connection.once('close', () => {
      all -= 1;
    });
  });
  const bound = () => {
    server.maxConnections = Math.max(0, options.maxConnections - others);
  };
  bound();
  const extra: Server[] = [];
  for (let i = 1; i < ACCEPT_SOCKETS; i += 1) {
    // As node:http's own listening socket is created (allowHalfOpen, noDelay).
    const socket = createServer({ allowHalfOpen: true, noDelay: true }, (connection: Socket) => {
      if (all >= options.maxConnections) {
        connection.destroy();
        options.onRefused();
        return;
      }
      others += 1;
      bound();
      connection.once('close', () => {
        others -= 1;
        bound();
      });
      server.emit('connection', connection);
    });
    await listen(socket, { port: address.port, host: options.host, backlog: options.backlog, reusePort: true });
    socket.on('error', options.onAcceptError);
    extra.push(socket);
  }

  return {
    address,
    connections: () => all,
    close: async () => {
      await Promise.all([server, ...extra].map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
    },
  };
}

/** Binds the port without SO_REUSEPORT, so that a port in use fails as usual; returns it free. */
async function claimPort(options: AcceptOptions): Promise<number> {
  const probe = createServer();
  await listen(probe, { port: options.port, host: options.host, backlog: 1, reusePort: false });
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

function listen(server: Server, options: { port: number; host: string; backlog: number; reusePort: boolean }): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

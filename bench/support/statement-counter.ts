// Statements per request, counted on the wire (counted, not assumed): a TCP proxy
// between the service and PostgreSQL reads the frontend protocol and counts each Execute and
// simple Query, by prepared-statement name (the text's first words for an unnamed one), and each
// Sync (one per round trip of the extended protocol). Used only for a dedicated, sequential pass,
// never during a throughput measurement.
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface StatementCounts {
  statements: number;
  roundTrips: number;
  byName: Record<string, number>;
}

export interface StatementCounter {
  readonly port: number;
  /** Counts since the last reset. */
  take(): StatementCounts;
  close(): Promise<void>;
}

const cstring = (buffer: Buffer, at: number): [string, number] => {
  const end = buffer.indexOf(0, at);
  return [buffer.toString('utf8', at, end), end + 1];
};
const label = (text: string) => text.trim().replace(/\s+/g, ' ').split(' ').slice(0, 4).join(' ');

export async function startStatementCounter(targetHost: string, targetPort: number): Promise<StatementCounter> {
  let counts: StatementCounts = { statements: 0, roundTrips: 0, byName: {} };
  const sockets = new Set<Socket>();
  const count = (name: string) => {
    counts.statements += 1;
    counts.byName[name] = (counts.byName[name] ?? 0) + 1;
  };
  const server: Server = createServer((client) => {
    const upstream = connect(targetPort, targetHost);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    upstream.pipe(client);
    let pending = Buffer.alloc(0);
    let started = false;
    // Names of unnamed statements (the last Parse of this connection), and of the next Execute.
    let unnamedText = '';
    let bound = '';
    client.on('data', (chunk: Buffer) => {
      upstream.write(chunk);
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        if (!started) {
          if (pending.length < 4) return;
          const length = pending.readInt32BE(0);
          if (pending.length < length) return;
          pending = pending.subarray(length);
          started = true;
          continue;
        }
        if (pending.length < 5) return;
        const type = String.fromCharCode(pending[0] ?? 0);
        const length = pending.readInt32BE(1);
        if (pending.length < 1 + length) return;
        const body = pending.subarray(5, 1 + length);
        pending = pending.subarray(1 + length);
        if (type === 'Q') count(label(cstring(body, 0)[0]));
        else if (type === 'P') {
          const [name, next] = cstring(body, 0);
          if (name === '') unnamedText = cstring(body, next)[0];
        } else if (type === 'B') {
          const [, next] = cstring(body, 0); // portal
          const statement = cstring(body, next)[0];
          bound = statement === '' ? label(unnamedText) : statement;
        } else if (type === 'E') count(bound);
        if (type === 'S' || type === 'Q') counts.roundTrips += 1;
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    port: address.port,
    take() {
      const taken = counts;
      counts = { statements: 0, roundTrips: 0, byName: {} };
      return taken;
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

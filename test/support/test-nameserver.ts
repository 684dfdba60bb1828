// A nameserver for R50's tests, speaking real DNS over UDP (and accepting TCP), that answers
// only what it is told to and swallows every other query: reads it and never answers, the way a
// customer's own nameserver can hold a resolver for as long as it likes.
// - `answers`: names whose A query gets 127.0.0.1 (and whose other queries get NOERROR with no
//   record, as a healthy nameserver would), unless `swallowAaaa` drops their AAAA queries too.
// - `aaaa`: an IPv6 address their AAAA query gets instead of no record; `aDelayMs`: how long
//   their A answer is held back (a nameserver whose IPv4 answer comes last).
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { parseIpv6 } from '../../src/images/ip-bytes.ts';

export interface TestNameserverOptions {
  readonly host?: string;
  /** 0 (default) for any free port; 53 inside a network namespace. */
  readonly port?: number;
  readonly answers?: readonly string[];
  /** Swallow AAAA queries even for answered names (a nameserver that drops them). */
  readonly swallowAaaa?: boolean;
  /** The AAAA answer of answered names (16 bytes as an IPv6 address); none by default. */
  readonly aaaa?: string;
  /** Milliseconds the A answer of answered names is held back. */
  readonly aDelayMs?: number;
  /** Called for every query swallowed. */
  readonly onSwallowed?: () => void;
}

export interface TestNameserver {
  readonly port: number;
  /** Queries swallowed so far (UDP datagrams and TCP connections). */
  readonly swallowed: number;
  close(): Promise<void>;
}

/** The question's name and type, and where the question section ends; undefined if malformed. */
function question(query: Buffer): { name: string; type: number; end: number } | undefined {
  const labels: string[] = [];
  let at = 12;
  while (at < query.length) {
    const length = query[at] as number;
    if (length === 0) {
      if (at + 5 > query.length) return undefined;
      return { name: labels.join('.').toLowerCase(), type: query.readUInt16BE(at + 1), end: at + 5 };
    }
    if (length > 63) return undefined;
    labels.push(query.subarray(at + 1, at + 1 + length).toString('latin1'));
    at += 1 + length;
  }
  return undefined;
}

/**
 * A healthy nameserver's response: A 127.0.0.1 for an A query, the `aaaa` address (if any) for an
 * AAAA query, no record for any other type.
 */
function response(query: Buffer, q: { type: number; end: number }, aaaa: Buffer | undefined): Buffer {
  const header = Buffer.alloc(12);
  query.copy(header, 0, 0, 2);
  header.writeUInt16BE(0x8180, 2); // a response, recursion desired and available, NOERROR
  header.writeUInt16BE(1, 4);
  const data = q.type === 1 ? Buffer.from([127, 0, 0, 1]) : q.type === 28 ? aaaa : undefined;
  header.writeUInt16BE(data === undefined ? 0 : 1, 6);
  // The answer's name points at the question's (0xc00c); class IN, TTL 60.
  const record = data && Buffer.concat([Buffer.from([0xc0, 0x0c, 0, q.type, 0, 1, 0, 0, 0, 60, 0, data.length]), data]);
  return Buffer.concat([header, query.subarray(12, q.end), ...(record ? [record] : [])]);
}

export async function startTestNameserver(options: TestNameserverOptions = {}): Promise<TestNameserver> {
  const host = options.host ?? '127.0.0.1';
  const answered = new Set((options.answers ?? []).map((n) => n.toLowerCase()));
  let swallowed = 0;
  const swallow = (): void => {
    swallowed++;
    options.onSwallowed?.();
  };
  const aaaa = options.aaaa === undefined ? undefined : (parseIpv6(options.aaaa) ?? undefined);
  const held = new Set<Socket>();
  const onQuery = (udp: UdpSocket) => (query: Buffer, from: { port: number; address: string }) => {
    const q = question(query);
    if (q !== undefined && answered.has(q.name) && !(options.swallowAaaa && q.type === 28)) {
      const send = () => udp.send(response(query, q, aaaa), from.port, from.address);
      if (q.type === 1 && options.aDelayMs) setTimeout(send, options.aDelayMs);
      else send();
      return;
    }
    swallow();
  };
  const tcp: Server = createServer((socket) => {
    held.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => held.delete(socket));
    swallow();
  });
  // UDP and TCP on the same port number: a free UDP port may be taken for TCP by another
  // process of the suite, so a clash is retried on another port (a fixed port, 53, is not).
  let udp: UdpSocket | undefined;
  for (let attempt = 0; udp === undefined; attempt++) {
    const candidate = createSocket('udp4');
    candidate.on('message', onQuery(candidate));
    await new Promise<void>((resolve) => candidate.bind(options.port ?? 0, host, resolve));
    const port = candidate.address().port;
    const listened = await new Promise<Error | undefined>((resolve) => {
      tcp.once('error', resolve);
      tcp.listen(port, host, () => {
        tcp.off('error', resolve);
        resolve(undefined);
      });
    });
    if (listened === undefined) udp = candidate;
    else {
      await new Promise<void>((resolve) => candidate.close(() => resolve()));
      if (options.port !== undefined && options.port !== 0) throw listened;
      if (attempt >= 20) throw listened;
    }
  }
  const bound = udp;
  return {
    port: (tcp.address() as AddressInfo).port,
    get swallowed() {
      return swallowed;
    },
    close: async () => {
      for (const socket of held) socket.destroy();
      await new Promise<void>((resolve) => tcp.close(() => resolve()));
      await new Promise<void>((resolve) => bound.close(() => resolve()));
    },
  };
}

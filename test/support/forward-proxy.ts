// A small forward proxy for the egress tests (R45), speaking both ways clients use one:
// - CONNECT host:port (a tunnel: what undici's proxy agent uses for https targets, and Node 24's
//   bundled undici for http targets too);
// - an absolute-URI request (GET http://host:port/path: what Node's http agents with a proxy use,
//   and the undici package's proxy agent for http targets).
// It records every target it was asked for, resolves the names of `hosts` itself (a name only
// it knows proves a request came through it), refuses targets listed in `refuse` (502, recorded
// first), answers CONNECTs to the targets given to answerConnect as told, and forwards the rest on
// loopback only.
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';

export interface ProxiedRequest {
  readonly kind: 'connect' | 'absolute';
  /** host:port asked for. */
  readonly target: string;
  /** The absolute URI of an absolute-URI request. */
  readonly url?: string;
}

/** How the proxy answers a CONNECT: a status other than 200 (407, 502, ...), or closing the connection without a word. */
export type ConnectAnswer = number | 'close';

export interface ForwardProxy {
  readonly url: string;
  readonly seen: ProxiedRequest[];
  /** From now on, a CONNECT to `target` (host:port) gets `answer`; undefined forwards it again. */
  answerConnect(target: string, answer: ConnectAnswer | undefined): void;
  close(): Promise<void>;
}

export interface ForwardProxyOptions {
  /** Names the proxy resolves to 127.0.0.1 (nothing else on the machine does). */
  readonly hosts?: readonly string[];
  /** host:port targets refused with 502 Bad Gateway. */
  readonly refuse?: readonly string[];
}

export async function startForwardProxy(options: ForwardProxyOptions = {}): Promise<ForwardProxy> {
  const seen: ProxiedRequest[] = [];
  const sockets = new Set<Socket>();
  const known = new Set(options.hosts ?? []);
  const refused = new Set(options.refuse ?? []);
  const answers = new Map<string, ConnectAnswer>();
  // Loopback only: a test's proxy never reaches out of the machine.
  const resolve = (host: string): string | undefined => (known.has(host) || host === '127.0.0.1' ? '127.0.0.1' : undefined);
  const split = (target: string): [string, number] => {
    const at = target.lastIndexOf(':');
    return [target.slice(0, at).replace(/^\[|\]$/g, ''), Number(target.slice(at + 1))];
  };

  const server: Server = createServer((req: IncomingMessage, res) => {
    let url: URL;
    try {
      url = new URL(req.url ?? '');
    } catch {
      res.writeHead(400).end('absolute URI expected');
      return;
    }
    const target = `${url.hostname}:${url.port || 80}`;
    seen.push({ kind: 'absolute', target, url: url.href });
    const address = resolve(url.hostname);
    if (refused.has(target) || address === undefined) {
      res.writeHead(502).end('refused by the test proxy');
      return;
    }
    const upstream = httpRequest(
      { host: address, port: Number(url.port || 80), method: req.method, path: url.pathname + url.search, headers: { ...req.headers, host: url.host } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.headersSent || res.writeHead(502).end());
    req.pipe(upstream);
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    const target = req.url ?? '';
    seen.push({ kind: 'connect', target });
    const answer = answers.get(target);
    if (answer === 'close') {
      // A proxy restarting, at its connection limit, or a load balancer without a backend.
      client.destroy();
      return;
    }
    if (answer !== undefined) {
      client.end(`HTTP/1.1 ${answer} Not Forwarded\r\n\r\n`);
      return;
    }
    const [host, port] = split(target);
    const address = resolve(host);
    if (refused.has(target) || address === undefined || !Number.isInteger(port)) {
      client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
      return;
    }
    const upstream = connect(port, address, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    answerConnect(target, answer) {
      if (answer === undefined) answers.delete(target);
      else answers.set(target, answer);
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}

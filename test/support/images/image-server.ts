// A local image host on 127.0.0.1 (or ::1) with programmable routes, counting
// connections and recording the requests it saw.
import http from 'node:http';
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { TLS_CERT, TLS_KEY } from './fixtures.ts';

export type Route = (req: IncomingMessage, res: ServerResponse, server: ImageServer) => void;

export interface SeenRequest {
  readonly path: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly servername: string | false | undefined;
}

export class ImageServer {
  readonly requests: SeenRequest[] = [];
  readonly sockets = new Set<Socket>();
  connections = 0;
  active = 0;
  maxActive = 0;
  port = 0;
  readonly #server: http.Server;
  readonly #routes: Record<string, Route>;

  constructor(routes: Record<string, Route>, options: { tls?: boolean } = {}) {
    this.#routes = routes;
    const handler = (req: IncomingMessage, res: ServerResponse): void => this.#handle(req, res);
    this.#server = options.tls ? https.createServer({ cert: TLS_CERT, key: TLS_KEY }, handler) : http.createServer(handler);
    const onSocket = (socket: Socket): void => {
      this.connections++;
      this.sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => this.sockets.delete(socket));
    };
    this.#server.on(options.tls ? 'secureConnection' : 'connection', onSocket);
    this.#server.on('tlsClientError', () => {});
    this.#server.on('clientError', (_err, socket) => socket.destroy());
  }

  #handle(req: IncomingMessage, res: ServerResponse): void {
    const servername = 'servername' in req.socket ? (req.socket as { servername: string | false }).servername : undefined;
    this.requests.push({ path: req.url ?? '', headers: req.headers, servername });
    this.active++;
    this.maxActive = Math.max(this.maxActive, this.active);
    res.on('close', () => this.active--);
    const route = this.#routes[(req.url ?? '').split('?')[0] ?? ''];
    if (route === undefined) {
      res.writeHead(404, { 'Content-Type': 'text/plain' });
      res.end('not found');
      return;
    }
    route(req, res, this);
  }

  async listen(host = '127.0.0.1'): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, host, resolve));
    this.port = (this.#server.address() as { port: number }).port;
    return this;
  }

  url(path: string, host = '127.0.0.1'): string {
    return `${this.#server instanceof https.Server ? 'https' : 'http'}://${host}:${this.port}${path}`;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

/** A route answering `body` with `type`, and Content-Length unless `chunked`. */
export function serve(body: Buffer, type: string, options: { chunked?: boolean; status?: number; headers?: Record<string, string> } = {}): Route {
  return (_req, res) => {
    const headers: Record<string, string | number> = { 'Content-Type': type, ...options.headers };
    if (!options.chunked) headers['Content-Length'] = body.length;
    res.writeHead(options.status ?? 200, headers);
    if (options.chunked) {
      res.write(body);
      res.end();
    } else {
      res.end(body);
    }
  };
}

export function redirect(location: string, status = 302): Route {
  return (_req, res) => {
    res.writeHead(status, { Location: location, 'Content-Type': 'text/plain' });
    res.end('moved');
  };
}

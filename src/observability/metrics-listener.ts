// GET /metrics on a listener of its own (R40): METRICS_HOST:METRICS_PORT, never the API port,
// so the API's exposure (load balancer, gateway) never exposes the metrics and a scrape never
// waits behind API traffic in the Koa stack. Anything but GET or HEAD /metrics is 404 or 405.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

interface MetricsSource {
  exposition(): Promise<string>;
  readonly contentType: string;
}

export interface MetricsListener {
  readonly url: string;
  close(): Promise<void>;
}

export async function startMetricsListener(source: MetricsSource, host: string, port: number): Promise<MetricsListener> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end('method not allowed\n');
      return;
    }
    source.exposition().then(
      (text) => {
        res.writeHead(200, { 'content-type': source.contentType, 'cache-control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      () => res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('metrics unavailable\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shown}:${address.port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

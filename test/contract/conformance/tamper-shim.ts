// A loopback forwarder between Prism and the service (Prism's upstream). It passes requests
// and responses through unchanged, except when a request carries the header TAMPER_HEADER: it
// then sends the service bytes Prism itself cannot forward. Prism 5 parses a JSON body before
// proxying and re-serialises it (a body it cannot parse is never forwarded: Prism hangs or
// answers a 500 of its own), and node:http joins a repeated header into one value. With the
// shim, Prism sees and validates a well-formed request, the service receives the raw bytes or
// the repeated header, and Prism validates the service's answer to them.
import { createServer, request, type IncomingHttpHeaders, type OutgoingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export const TAMPER_HEADER = 'x-conformance-tamper';

export interface Tamper {
  /** Replaces the request body with these bytes. */
  body?: Buffer | string;
  /** Sends these headers repeated, one line per value (replacing Prism's joined value). */
  repeat?: Record<string, string[]>;
}

/** The header value that asks the shim for `tamper`. */
export function tamperHeader(tamper: Tamper): Record<string, string> {
  const wire = {
    body: tamper.body === undefined ? undefined : Buffer.from(tamper.body).toString('base64'),
    repeat: tamper.repeat,
  };
  return { [TAMPER_HEADER]: Buffer.from(JSON.stringify(wire)).toString('base64url') };
}

function decode(value: string): { body?: Buffer; repeat?: Record<string, string[]> } {
  const wire = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as { body?: string; repeat?: Record<string, string[]> };
  return { body: wire.body === undefined ? undefined : Buffer.from(wire.body, 'base64'), repeat: wire.repeat };
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'proxy-connection', 'host']);

export interface TamperShim {
  readonly url: string;
  close(): Promise<void>;
}

export async function startTamperShim(upstream: string): Promise<TamperShim> {
  const target = new URL(upstream);
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = req.headers[TAMPER_HEADER];
      const tamper = typeof raw === 'string' ? decode(raw) : {};
      const body = tamper.body ?? Buffer.concat(chunks);
      const headers: OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(req.headers as IncomingHttpHeaders)) {
        if (name === TAMPER_HEADER || HOP_BY_HOP.has(name) || name === 'content-length') continue;
        headers[name] = value;
      }
      for (const [name, values] of Object.entries(tamper.repeat ?? {})) headers[name.toLowerCase()] = values;
      if (body.length > 0 || req.method === 'POST') headers['content-length'] = String(body.length);
      const forward = request(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers, agent: false },
        (upstreamRes) => {
          const out: OutgoingHttpHeaders = {};
          for (const [name, value] of Object.entries(upstreamRes.headers)) if (!HOP_BY_HOP.has(name)) out[name] = value;
          res.writeHead(upstreamRes.statusCode ?? 502, out);
          upstreamRes.pipe(res);
        },
      );
      forward.on('error', (error) => {
        res.writeHead(599, { 'content-type': 'text/plain' });
        res.end(`tamper shim: upstream failed: ${error.message}`);
      });
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

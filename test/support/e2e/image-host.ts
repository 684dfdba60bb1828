// A local image host on 127.0.0.1 (node:http, port 0) for the end-to-end tests: the real PNG,
// JPEG, GIF and WebP fixtures of test/integration/images/fixtures/, and routes that misbehave the ways
// R23 lists. It records every request, so a test can tell whether the service fetched.
import { createHash } from 'node:crypto';
import net from 'node:net';
import { GIF, JPEG, PNG, SVG, WEBP } from '../images/fixtures.ts';
import { ImageServer, redirect, serve } from '../images/image-server.ts';
import type { Route } from '../images/image-server.ts';

export interface ServedImage {
  readonly path: string;
  readonly mimeType: 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';
  readonly bytes: Buffer;
  readonly sha256: string;
}

const image = (path: string, mimeType: ServedImage['mimeType'], bytes: Buffer): ServedImage => ({
  path,
  mimeType,
  bytes,
  sha256: createHash('sha256').update(bytes).digest('hex'),
});

/** The four accepted formats, real bytes. */
export const IMAGES = {
  png: image('/photos/tiny.png', 'image/png', PNG),
  jpeg: image('/photos/tiny.jpg', 'image/jpeg', JPEG),
  gif: image('/photos/tiny.gif', 'image/gif', GIF),
  webp: image('/photos/tiny.webp', 'image/webp', WEBP),
} as const;

/** A PNG signature followed by padding: a "PNG" of `size` bytes. */
export function bigPng(size: number): Buffer {
  return Buffer.concat([PNG.subarray(0, 16), Buffer.alloc(Math.max(0, size - 16), 0x41)]);
}

/** Answers 200 with a declared length, then one byte every `everyMs`: a slow drip. */
function drip(body: Buffer, everyMs: number): Route {
  return (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': body.length });
    let sent = 0;
    const timer = setInterval(() => {
      if (res.destroyed || sent >= body.length) {
        clearInterval(timer);
        if (!res.destroyed) res.end();
        return;
      }
      res.write(body.subarray(sent, sent + 1));
      sent++;
    }, everyMs);
    res.on('close', () => clearInterval(timer));
  };
}

export interface ImageHostOptions {
  /** Size of the oversize bodies (set above the service's IMAGE_MAX_BYTES). */
  readonly oversizeBytes?: number;
  /** A port on [::1] that a redirect points at (a guard listener, to prove nothing connects). */
  readonly v6LoopbackPort?: number;
  /** More routes (the made images of the normalization tests). */
  readonly extraRoutes?: Readonly<Record<string, Route>>;
}

/** The image host; `url(path)` gives the absolute URL of a route. */
export async function startImageHost(options: ImageHostOptions = {}): Promise<ImageServer> {
  const oversize = bigPng(options.oversizeBytes ?? 64 * 1024);
  const routes: Record<string, Route> = {
    '/big-declared.png': serve(oversize, 'image/png'),
    '/big-chunked.png': serve(oversize, 'image/png', { chunked: true }),
    '/drawing.svg': serve(SVG, 'image/svg+xml'),
    '/svg-declared-png.png': serve(SVG, 'image/png'),
    '/png-declared-jpeg.jpg': serve(PNG, 'image/jpeg'),
    '/page.html': serve(Buffer.from('<!doctype html><p>not an image</p>'), 'text/html'),
    '/status-500.png': serve(Buffer.from('oops'), 'text/plain', { status: 500 }),
    '/status-503.png': serve(Buffer.from('busy'), 'text/plain', { status: 503, headers: { 'Retry-After': '1' } }),
    '/status-429.png': serve(Buffer.from('slow down'), 'text/plain', { status: 429, headers: { 'Retry-After': '1' } }),
    '/drip.png': drip(PNG, 150),
    '/to-metadata.png': redirect('http://169.254.169.254/latest/meta-data/iam/security-credentials/'),
    '/to-v6-loopback.png': redirect(`http://[::1]:${options.v6LoopbackPort ?? 80}/photos/tiny.png`),
    '/to-tiny.png': redirect(IMAGES.png.path),
  };
  for (const served of Object.values(IMAGES)) routes[served.path] = serve(served.bytes, served.mimeType);
  Object.assign(routes, options.extraRoutes);
  return new ImageServer(routes).listen('127.0.0.1');
}

/** A TCP listener on [::1] that only counts connections: a redirect target nobody may reach. */
export async function startV6Guard(): Promise<{ port: number; connections: string[]; close(): Promise<void> }> {
  const connections: string[] = [];
  const server = net.createServer((socket) => {
    connections.push(`${socket.remoteAddress}:${socket.remotePort}`);
    socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '::1', port: 0, ipv6Only: true }, resolve);
  });
  return {
    port: (server.address() as net.AddressInfo).port,
    connections,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

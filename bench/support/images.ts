// Real images padded to an exact size for the image scenario, and the local server that hands
// them out. Padding stays inside the format, so the bytes remain a valid image and pass the
// service's content sniffing (src/images/image-content.ts checks the leading signature):
// PNG gets a large tEXt chunk after IHDR, JPEG a run of COM segments after SOI.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { withPngChunks } from '../../test/support/images/made-images.ts';
import { REPO_ROOT } from './processes.ts';

const FIXTURES = `${REPO_ROOT}test/integration/images/fixtures/`;

/** The fixture PNG with a tEXt "Comment" chunk making it exactly `size` bytes. */
export function paddedPng(size: number): Buffer {
  const png = readFileSync(`${FIXTURES}tiny.png`);
  const padLength = size - png.length - 12; // a chunk adds length, type and CRC
  if (padLength < 8) throw new Error('PNG padding target too small');
  const text = Buffer.alloc(padLength, 0x78); // "Comment\0xxxx…"
  text.write('Comment\0', 0, 'latin1');
  const out = withPngChunks(png, [{ type: 'tEXt', data: text }]);
  if (out.length !== size) throw new Error(`padded PNG is ${out.length} bytes`);
  return out;
}

/** The fixture JPEG with COM segments after SOI making it exactly `size` bytes. */
export function paddedJpeg(size: number): Buffer {
  const jpeg = readFileSync(`${FIXTURES}tiny.jpg`);
  let remaining = size - jpeg.length;
  const segments: Buffer[] = [];
  while (remaining > 0) {
    // A segment is FF FE + 2-byte length (counting itself) + data: 4 to 65537 bytes in all.
    let total = Math.min(remaining, 65_537);
    if (remaining - total > 0 && remaining - total < 4) total -= 4; // leave room for a last one
    if (total < 4) throw new Error('JPEG padding target not reachable');
    const segment = Buffer.alloc(total, 0x20);
    segment.writeUInt16BE(0xfffe, 0);
    segment.writeUInt16BE(total - 2, 2);
    segments.push(segment);
    remaining -= total;
  }
  const out = Buffer.concat([jpeg.subarray(0, 2), ...segments, jpeg.subarray(2)]);
  if (out.length !== size) throw new Error(`padded JPEG is ${out.length} bytes`);
  return out;
}

export interface ImageServer {
  /** Absolute URLs of the images, two PNG and two JPEG. */
  readonly urls: readonly string[];
  readonly served: () => number;
  close(): Promise<void>;
}

export async function startImageServer(sizeBytes: number): Promise<ImageServer> {
  const png = paddedPng(sizeBytes);
  const jpeg = paddedJpeg(sizeBytes);
  const files: Record<string, { bytes: Buffer; type: string }> = {
    '/evidence/a.png': { bytes: png, type: 'image/png' },
    '/evidence/b.jpg': { bytes: jpeg, type: 'image/jpeg' },
    '/evidence/c.png': { bytes: png, type: 'image/png' },
    '/evidence/d.jpg': { bytes: jpeg, type: 'image/jpeg' },
  };
  let served = 0;
  const server: Server = createServer((req, res) => {
    const file = files[(req.url ?? '').split('?')[0] ?? ''];
    if (!file) {
      res.writeHead(404).end();
      return;
    }
    served++;
    res.writeHead(200, { 'content-type': file.type, 'content-length': file.bytes.length });
    res.end(file.bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    urls: Object.keys(files).map((path) => `http://127.0.0.1:${port}${path}`),
    served: () => served,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

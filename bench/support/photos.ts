// Phone-like photos for the photo scenarios (R38): four 12-megapixel JPEGs of 3 to 6 MB,
// made once per run from gradients, waves and noise (so they compress like photos, not like
// padding), each with an EXIF block as phones write it (make, model, GPS position; two of them
// held upright, orientation 6), and the local server that hands them out.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';

const WIDTH = 4032;
const HEIGHT = 3024;
/** Noise divisor and JPEG quality of each photo: from about 3.5 to about 5.5 MB. */
const SETTINGS = [
  { noise: 12, quality: 92, orientation: 1 },
  { noise: 8, quality: 90, orientation: 6 },
  { noise: 7, quality: 92, orientation: 1 },
  { noise: 5, quality: 92, orientation: 6 },
] as const;

function pixels(noiseDivisor: number, seed: number): Buffer {
  const raw = Buffer.alloc(WIDTH * HEIGHT * 3);
  const noise = randomBytes(WIDTH * HEIGHT);
  const clamp = (v: number): number => (v < 0 ? 0 : v > 255 ? 255 : v);
  for (let y = 0; y < HEIGHT; y++) {
    for (let x = 0; x < WIDTH; x++) {
      const i = y * WIDTH + x;
      const n = ((noise[i] ?? 128) - 128) / noiseDivisor;
      const wave = 25 * Math.sin((x + seed * 300) / 180) * Math.cos(y / 140);
      raw[i * 3] = clamp((x / WIDTH) * 170 + 40 + n + wave);
      raw[i * 3 + 1] = clamp((y / HEIGHT) * 160 + 45 + n - wave);
      raw[i * 3 + 2] = clamp(((x + y) / (WIDTH + HEIGHT)) * 140 + 60 + n + wave / 2);
    }
  }
  return raw;
}

export interface Photo {
  readonly bytes: Buffer;
}

/** The four photos (photo-scenarios.ts swaps in a Display P3 profile for its CPU figure). */
export async function makePhotos(): Promise<Photo[]> {
  const photos: Photo[] = [];
  for (const [n, s] of SETTINGS.entries()) {
    const image = sharp(pixels(s.noise, n), { raw: { width: WIDTH, height: HEIGHT, channels: 3 } })
      .jpeg({ quality: s.quality })
      .withMetadata({ orientation: s.orientation })
      .withExif({
        IFD0: { Make: 'BenchPhone', Model: 'Pro 12', DateTime: '2026:11:21 09:41:00' },
        IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '47/1 22/1 30/1', GPSLongitudeRef: 'E', GPSLongitude: '8/1 32/1 15/1' },
      });
    const bytes = await image.toBuffer();
    if (bytes.length < 3e6 || bytes.length > 6e6) throw new Error(`bench photo ${n} is ${bytes.length} bytes, not 3 to 6 MB`);
    photos.push({ bytes });
  }
  return photos;
}

export interface PhotoServer {
  readonly urls: readonly string[];
  close(): Promise<void>;
}

export async function startPhotoServer(photos: readonly Photo[]): Promise<PhotoServer> {
  const server: Server = createServer((req, res) => {
    const photo = photos[Number(/^\/photos\/(\d)\.jpg$/.exec(req.url ?? '')?.[1] ?? -1)];
    if (photo === undefined) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': photo.bytes.length });
    res.end(photo.bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    urls: photos.map((_, n) => `http://127.0.0.1:${port}/photos/${n}.jpg`),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

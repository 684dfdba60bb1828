// Real tiny images (2x2, made with ImageMagick and cwebp) and TLS material for a
// local CA, all committed under test/integration/images/fixtures/.
import { readFileSync } from 'node:fs';
import path from 'node:path';

export const FIXTURES = path.resolve(import.meta.dirname, '..', '..', 'integration', 'images', 'fixtures');
const read = (name: string): Buffer => readFileSync(path.join(FIXTURES, name));

export const PNG = read('tiny.png');
export const JPEG = read('tiny.jpg');
export const GIF = read('tiny.gif');
export const GIF87 = read('tiny-87a.gif');
export const WEBP = read('tiny.webp');
export const SVG = read('image.svg');
export const HTML = Buffer.from('<!doctype html><html><body>not an image</body></html>');

export const TLS_CA = read('ca.crt');
export const TLS_CERT = read('server.crt');
export const TLS_KEY = read('server.key');

/** The repository root and the shared spec folder beside it (absent outside the workplace). */
export const REPO_ROOT = path.resolve(import.meta.dirname, '..', '..', '..');

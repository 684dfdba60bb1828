// The evaluation's images (R46): drawn on the spot from each case's recipe (shapes, colours and
// text in SVG, encoded by sharp), nothing downloaded, and served by a host on loopback so that
// the run fetches them through the service's own image boundary, as it would a customer's.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import type { EvalCase, ImageRecipe } from './cases.ts';

const CONTENT_TYPE: Readonly<Record<ImageRecipe['format'], string>> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  gif: 'image/gif',
};

const escapeXml = (s: string): string =>
  s.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c] ?? c);

/** The motif of each scene, drawn in a 640 x 480 box (the SVG scales it). */
const SCENE: Readonly<Record<ImageRecipe['scene'], { background: string; shapes: string }>> = {
  puddle: {
    background: '#d9d4c7',
    shapes:
      '<rect x="60" y="40" width="520" height="150" fill="#8a6d4b"/><rect x="300" y="190" width="40" height="90" fill="#9aa3ab"/>' +
      '<ellipse cx="320" cy="360" rx="220" ry="60" fill="#3f7fbf" opacity="0.8"/><circle cx="318" cy="300" r="8" fill="#3f7fbf"/>',
  },
  crack: {
    background: '#c9c4bb',
    shapes: '<polyline points="120,20 180,120 150,190 240,280 210,350 300,460" fill="none" stroke="#222" stroke-width="9"/>' +
      '<polyline points="240,280 330,300 390,270" fill="none" stroke="#333" stroke-width="5"/>',
  },
  spark: {
    background: '#f1efe9',
    shapes:
      '<rect x="250" y="150" width="140" height="180" rx="14" fill="#fff" stroke="#777" stroke-width="4"/>' +
      '<circle cx="295" cy="230" r="10" fill="#333"/><circle cx="345" cy="230" r="10" fill="#333"/>' +
      '<ellipse cx="320" cy="200" rx="110" ry="80" fill="#2b2b2b" opacity="0.35"/>' +
      '<polygon points="420,120 440,170 490,175 450,205 465,255 420,225 375,255 390,205 350,175 400,170" fill="#ffd21f"/>',
  },
  parcel: {
    background: '#6d8a5a',
    shapes:
      '<rect x="120" y="40" width="400" height="300" fill="#7b5a3c"/><rect x="300" y="120" width="90" height="220" fill="#5e432b"/>' +
      '<rect x="200" y="300" width="200" height="130" fill="#c69c6d" stroke="#8a6a44" stroke-width="4"/>' +
      '<rect x="290" y="300" width="20" height="130" fill="#e6d3a8"/>',
  },
  shelf: {
    background: '#e4e6e8',
    shapes:
      '<rect x="60" y="40" width="20" height="420" fill="#2f5d9a"/><rect x="560" y="40" width="20" height="420" fill="#2f5d9a"/>' +
      '<rect x="60" y="150" width="520" height="14" fill="#e07b1f"/><rect x="60" y="300" width="520" height="14" fill="#e07b1f"/>' +
      '<rect x="100" y="90" width="90" height="60" fill="#c69c6d"/><rect x="200" y="90" width="90" height="60" fill="#c69c6d"/>' +
      '<rect x="120" y="240" width="90" height="60" fill="#c69c6d"/><rect x="400" y="240" width="90" height="60" fill="#c69c6d"/>',
  },
  door: {
    background: '#b8c2cc',
    shapes:
      '<rect x="200" y="40" width="240" height="420" fill="#6b4a2e"/><circle cx="410" cy="260" r="12" fill="#d4af37"/>' +
      '<rect x="395" y="280" width="30" height="12" fill="#333"/><polyline points="200,250 230,240 215,280 240,300" fill="none" stroke="#eee" stroke-width="4"/>',
  },
  stain: {
    background: '#8d8a9b',
    shapes: '<path d="M220 200 q40 -80 120 -30 q90 10 60 90 q20 80 -90 70 q-120 10 -90 -130z" fill="#5a3d1e" opacity="0.75"/>',
  },
  elevator: {
    background: '#9ea7ad',
    shapes:
      '<rect x="170" y="40" width="300" height="420" fill="#c7ccd1" stroke="#555" stroke-width="6"/>' +
      '<line x1="320" y1="40" x2="320" y2="460" stroke="#555" stroke-width="6"/>' +
      '<rect x="500" y="200" width="50" height="90" fill="#333"/><circle cx="525" cy="225" r="10" fill="#f33"/><circle cx="525" cy="265" r="10" fill="#3c3"/>',
  },
  note: {
    background: '#f7f3d6',
    shapes: '<rect x="40" y="40" width="560" height="300" fill="#fff9b0" stroke="#c8b900" stroke-width="4"/>',
  },
  blank: { background: '#7d7d7d', shapes: '' },
};

/** Breaks a caption into lines of at most `width` characters for the SVG text. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') lines.push(line);
  return lines;
}

export function svgOf(recipe: ImageRecipe): string {
  const width = recipe.width ?? 640;
  const height = recipe.height ?? 480;
  const scene = SCENE[recipe.scene];
  const note = recipe.scene === 'note';
  const lines = recipe.caption === undefined ? [] : wrap(recipe.caption, note ? 26 : 40);
  const top = note ? 100 : 420 - (lines.length - 1) * 34;
  const text = lines
    .map((line, i) => `<text x="${note ? 60 : 320}" y="${top + i * 40}" ${note ? '' : 'text-anchor="middle" '}font-family="DejaVu Sans, sans-serif" font-size="${note ? 30 : 28}" font-weight="bold" fill="${note ? '#222' : '#fff'}" stroke="${note ? 'none' : '#000'}" stroke-width="1">${escapeXml(line)}</text>`)
    .join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 640 480" preserveAspectRatio="none"><rect width="640" height="480" fill="${scene.background}"/>${scene.shapes}${text}</svg>`;
}

/** The recipe as image bytes in its format. */
export async function renderImage(recipe: ImageRecipe): Promise<Buffer> {
  const image = sharp(Buffer.from(svgOf(recipe)));
  switch (recipe.format) {
    case 'jpeg':
      return image.jpeg({ quality: 85 }).toBuffer();
    case 'png':
      return image.png().toBuffer();
    case 'webp':
      return image.webp({ quality: 85 }).toBuffer();
    case 'gif':
      return image.gif().toBuffer();
  }
}

export interface ImageHost extends AsyncDisposable {
  /** The URLs of a case's images, in order (none for a text-only case). */
  urlsOf(c: EvalCase): string[];
  readonly requests: number;
}

/** Draws every image of `cases` up front (so drawing is not timed), then serves them on 127.0.0.1. */
export async function startImageHost(cases: readonly EvalCase[]): Promise<ImageHost> {
  const files = new Map<string, { bytes: Buffer; type: string }>();
  const paths = new Map<string, string[]>();
  for (const c of cases) {
    const recipes = c.request.evidence.images ?? [];
    const own: string[] = [];
    for (const [i, recipe] of recipes.entries()) {
      const path = `/images/${encodeURIComponent(c.id)}/${i}.${recipe.format === 'jpeg' ? 'jpg' : recipe.format}`;
      files.set(path, { bytes: await renderImage(recipe), type: CONTENT_TYPE[recipe.format] });
      own.push(path);
    }
    paths.set(c.id, own);
  }
  let requests = 0;
  const server = createServer((req, res) => {
    requests += 1;
    const file = req.method === 'GET' ? files.get(req.url ?? '') : undefined;
    if (file === undefined) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': file.type, 'content-length': file.bytes.length }).end(file.bytes);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    urlsOf: (c) => (paths.get(c.id) ?? []).map((path) => `http://127.0.0.1:${port}${path}`),
    get requests() {
      return requests;
    },
    async [Symbol.asyncDispose]() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

// The API reference served at GET /docs (operator-interface.md), built from contract/openapi.yaml
// by `redocly build-docs` at build time, like the generated types: `npm run generate` writes
// generated/api-reference.html and `npm run generate:check` (CI) fails when it is stale, so the
// page cannot drift from the contract. Built here rather than at start-up because @redocly/cli is
// a devDependency (absent after `npm ci --omit=dev`) and a build takes about a second and 140 MiB,
// which every start (and every test service) would pay; the service only reads the file.
//
// Offline by construction: Redoc's script is inlined (--inlineBundle, not the CDN), the template
// (scripts/api-reference.hbs) links no web font and asks for no favicon, telemetry is off, and
// the one remote image Redoc's bundle shows (its logo on cdn.redoc.ly) is replaced by an inline
// SVG. The build fails if anything that would make a browser fetch from another host is left.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const DOCS_PAGE = join(ROOT, 'generated', 'api-reference.html');
const TEMPLATE = join(ROOT, 'scripts', 'api-reference.hbs');
const LOGO = `data:image/svg+xml,${encodeURIComponent(
  "<svg xmlns='http://www.w3.org/2000/svg' width='44' height='16'><text x='0' y='12' font-family='sans-serif' font-size='12' fill='#555'>Redoc</text></svg>",
)}`;
const REMOTE_LOGOS = ['https://cdn.redoc.ly/redoc/logo-mini-full.svg', 'https://cdn.redoc.ly/redoc/logo-mini.svg'];

/** Resource references a browser would fetch from another host (links to click are fine). */
const REMOTE_FETCHES: [string, RegExp][] = [
  ['a tag loading from another host', /<(?:script|link|img|iframe|source|video|audio|embed|object)\b[^>]*\s(?:src|href|data|srcset)\s*=\s*["']?(?:https?:)?\/\//i],
  ['a CSS import or url() from another host', /(?:@import\s+|url\(\s*)["']?(?:https?:)?\/\//i],
  ['a module import from another host', /\bimport\s*(?:[\w{}*,\s]+from\s*)?["'](?:https?:)?\/\//i],
  ["Redoc's CDN", /cdn\.redoc\.ly|cdn\.redocly\.com\/redoc\//i],
  ['a web font service', /fonts\.(?:googleapis|gstatic)\.com/i],
];

/** Problems that would make the page reach beyond the service; empty when it is offline. */
export function remoteFetches(html: string): string[] {
  return REMOTE_FETCHES.filter(([, pattern]) => pattern.test(html)).map(([what]) => what);
}

export function buildDocsPage(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ers-docs-'));
  try {
    const out = join(dir, 'api-reference.html');
    execFileSync(
      join(ROOT, 'node_modules', '.bin', 'redocly'),
      ['build-docs', 'contract/openapi.yaml', '--inlineBundle', '--template', TEMPLATE, '-o', out],
      { cwd: ROOT, stdio: 'pipe', env: { ...process.env, REDOCLY_TELEMETRY: 'off', NO_UPDATE_NOTIFIER: '1' } },
    );
    let html = readFileSync(out, 'utf8');
    for (const logo of REMOTE_LOGOS) {
      if (!html.includes(logo)) throw new Error(`build-docs: Redoc's bundle no longer has ${logo}; check what it loads now`);
      html = html.replaceAll(logo, LOGO);
    }
    const problems = remoteFetches(html);
    if (problems.length > 0) throw new Error(`build-docs: the page would fetch from another host (${problems.join('; ')})`);
    return html;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(DOCS_PAGE, buildDocsPage());
  console.log(`${DOCS_PAGE} written from contract/openapi.yaml.`);
}

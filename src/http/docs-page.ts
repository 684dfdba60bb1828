// GET /docs (operator-interface.md "Health and operations"): the API reference, an HTML page
// rendered by Redoc from the published contract. It is built at build time into
// generated/api-reference.html (scripts/build-docs.ts; `npm run generate:check` fails when it is
// stale), so the service needs neither @redocly/cli nor a second of start-up to render it: the
// file is read once, when the routes are built. The page asks nothing of any other host (its
// script is inlined, no web font, no remote image); the Content-Security-Policy below makes the
// browser hold it to that even on paths no test clicks through. Like every response it carries
// x-request-id and cache-control: no-store (ruling R9, set by request-context.ts).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type Koa from 'koa';
import type { AppState } from './app-state.ts';
import { PUBLISHED_RETENTION_HOURS, withRetention } from './contract.ts';

const DOCS_PAGE_PATH = fileURLToPath(new URL('../../generated/api-reference.html', import.meta.url));

/**
 * Only the page itself: inline script and styles, images and fonts from data: URLs or this
 * origin, fetch() to this origin, Redoc's search workers from blob: URLs. Nothing else loads.
 */
export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'unsafe-inline'",
  "style-src 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  'worker-src blob:',
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** `retentionHours`: the page states the instance's Idempotency-Key retention, as the contract it serves does (R14). */
export function docsPage(path: string = DOCS_PAGE_PATH, retentionHours?: number): Koa.Middleware<AppState> {
  const page = readFileSync(path);
  // Only another retention than the committed one rewrites the page's 2.6 MB (once, here).
  const html = retentionHours === undefined || retentionHours === PUBLISHED_RETENTION_HOURS ? page : Buffer.from(withRetention(page.toString('utf8'), retentionHours));
  return (ctx) => {
    ctx.type = 'text/html; charset=utf-8';
    ctx.set('content-security-policy', DOCS_CONTENT_SECURITY_POLICY);
    ctx.set('x-content-type-options', 'nosniff');
    ctx.body = html;
  };
}

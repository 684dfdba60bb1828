// /docs opened in headless Chromium with network
// logging. The page shows both operations and, status by status, every error code the contract
// gives them; every request the page makes goes to the service itself (no CDN, web font or
// image from elsewhere) and nothing is logged as an error on the console. The screenshot the
// README shows (docs/api-reference.png) is taken here.
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Page, Request } from 'playwright-core';
import { contractDocument, errorCodesOf, resolve } from '../../support/contract-validator.ts';
import { startTestService, type TestService } from '../../support/service.ts';
import { launchChromium, type Browser } from './chromium.ts';

type Json = Record<string, unknown>;
/**
 * Where the screenshot goes: a temporary file, so that a test run never rewrites a tracked file;
 * DOCS_SCREENSHOT=docs/api-reference.png refreshes the README's picture (README, "Commands").
 */
const SCREENSHOT = process.env.DOCS_SCREENSHOT ?? join(tmpdir(), `ers-api-reference-${process.pid}.png`);

interface Operation {
  tag: string;
  summary: string;
  method: string;
  path: string;
  /** Error status -> the codes the contract allows with it. */
  errors: Map<string, string[]>;
}

/** Both operations as the contract describes them (so the test follows the contract, not a list of its own). */
const OPERATIONS: Operation[] = Object.entries(contractDocument.paths as Record<string, Record<string, Json>>).flatMap(([path, item]) =>
  Object.entries(item).map(([method, operation]) => {
    const errors = new Map<string, string[]>();
    for (const [status, response] of Object.entries(operation.responses as Record<string, Json>)) {
      if (Number(status) < 400) continue;
      const media = (resolve(response).content as Record<string, Json>)['application/json'] as Json;
      errors.set(status, errorCodesOf(media.schema as Json));
    }
    return { tag: (operation.tags as string[])[0] as string, summary: operation.summary as string, method, path, errors };
  }),
);

/** What the page's `document` offers the functions below, which run in the browser (no DOM lib here). */
interface ScrollTarget {
  scrollIntoView(options: { block: 'start' }): void;
}
interface InPage {
  document: { body: { innerText: string } };
}
const bodyText = (page: Page) => page.evaluate(() => (globalThis as unknown as InPage).document.body.innerText);

/** Opens an operation from the side menu (its tag, then its summary), as a reader would. */
async function openOperation(page: Page, operation: Operation): Promise<void> {
  await page.locator('a', { hasText: operation.tag }).first().click();
  await page.locator('a', { hasText: operation.summary }).first().click();
  await page.getByRole('heading', { name: operation.summary }).first().waitFor();
}

/** Clicks each error status of the operation's responses and gathers every line shown. */
async function errorCodesShown(page: Page, operation: Operation): Promise<Set<string>> {
  const lines = new Set<string>();
  for (const [status, codes] of operation.errors) {
    await page.getByRole('button', { name: status, exact: true }).first().click();
    // The body sample (and the schema) of that status name one of its codes once shown.
    await page.waitForFunction((wanted) => wanted.some((code) => (globalThis as unknown as InPage).document.body.innerText.includes(code)), codes, { timeout: 10_000 });
    for (const line of (await bodyText(page)).split('\n')) lines.add(line);
  }
  return lines;
}

describe('/docs in headless Chromium: both operations, their error codes, no request elsewhere', function () {
  this.timeout(120_000);
  let service: TestService;
  let browser: Browser;
  let page: Page;
  const requests: Request[] = [];
  const consoleErrors: string[] = [];

  before(async () => {
    browser = await launchChromium();
    service = await startTestService();
    // Every request of the profile: pages, workers, favicons, prefetches alike.
    browser.context.on('request', (request) => requests.push(request));
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    page.on('pageerror', (error) => consoleErrors.push(`uncaught: ${error.message}`));
    const response = await page.goto(`${service.url}/docs`, { waitUntil: 'networkidle' });
    expect(response?.status()).to.equal(200);
  });

  after(async () => {
    await browser?.close();
    await service?.close();
  });

  it('shows the contract: its title and every operation with its method and path', async () => {
    expect(await page.title()).to.equal('Evidence Report Service');
    expect(OPERATIONS.map((o) => `${o.method.toUpperCase()} ${o.path}`).sort()).to.deep.equal([
      'GET /v1/evidence/reports/{id}',
      'GET /v1/usage/current',
      'POST /v1/evidence/reports',
    ]);
    for (const operation of OPERATIONS) {
      await openOperation(page, operation);
      const text = await bodyText(page);
      expect(text, operation.summary).to.include(operation.summary).and.include(operation.path);
    }
  });

  for (const operation of OPERATIONS) {
    it(`shows every error status of ${operation.method.toUpperCase()} ${operation.path} with every code the contract gives it`, async () => {
      await openOperation(page, operation);
      const shown = [...(await errorCodesShown(page, operation))].join('\n');
      const expected = [...operation.errors.values()].flat();
      expect(expected.length).to.be.at.least(4);
      expect(expected.filter((code) => !shown.includes(code)), 'codes not shown').to.deep.equal([]);
    });
  }

  it('saves the screenshot the README shows: the create operation, its 429 with both codes', async () => {
    const create = OPERATIONS.find((o) => o.method === 'post') as Operation;
    await openOperation(page, create);
    await page.getByRole('button', { name: '429', exact: true }).first().click();
    // The same scroll position on every run (the heading at the top), so the picture only changes with the page.
    await page.getByRole('heading', { name: 'Responses' }).first().evaluate((heading) => (heading as unknown as ScrollTarget).scrollIntoView({ block: 'start' }));
    await page.waitForFunction(() => (globalThis as unknown as InPage).document.body.innerText.includes('rate_limit_exceeded'));
    // No hover state and no running animation, so that an unchanged page gives the same picture.
    await page.mouse.move(1, 999);
    const png = await page.screenshot({ path: SCREENSHOT, animations: 'disabled', caret: 'hide' });
    expect(png.subarray(1, 4).toString()).to.equal('PNG');
    if (process.env.DOCS_SCREENSHOT === undefined) rmSync(SCREENSHOT, { force: true });
  });

  it('made every request to the service itself: nothing to a CDN, a font service or any other host', () => {
    const origin = new URL(service.url).origin;
    const elsewhere = requests
      .map((request) => request.url())
      .filter((url) => !url.startsWith('data:'))
      .filter((url) => new URL(url.startsWith('blob:') ? url.slice('blob:'.length) : url).origin !== origin);
    expect(requests.length).to.be.at.least(1);
    expect(requests[0]?.url()).to.equal(`${service.url}/docs`);
    expect(elsewhere).to.deep.equal([]);
  });

  it('logged no error on the console and threw nothing', () => {
    expect(consoleErrors).to.deep.equal([]);
  });
});

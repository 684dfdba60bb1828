// Debian's Chromium (/usr/bin/chromium, `apt-get install chromium`; .ci/run installs it when it is
// missing) driven by playwright-core, which never downloads a browser of its own. Headless, with
// a new empty profile and none of Chromium's own background traffic (component updates, sync,
// field trials), so that every request the browser makes is one the page asked for.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Fails (never skips) when Chromium is not installed: the /docs page check needs a real browser. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium), as .ci/run does`);
  }
  const profile = mkdtempSync(join(tmpdir(), 'ers-chromium-profile-'));
  // launchPersistentContext passes --user-data-dir=<profile>: a new, empty one for every run.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_FLAGS,
    viewport: { width: 1400, height: 1000 },
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

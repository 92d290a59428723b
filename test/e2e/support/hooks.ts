import { cortexLog, e2eEnvironment, screenshot, stopEnvironment } from './e2eEnvironment';
import type { Page } from 'playwright-core';

// Mocha root hooks for the e2e suite: tear everything down once at the end, and on a failed test
// save a screenshot of its page and print the extension's log.

export const currentPage: { page?: Page } = {};

export const mochaHooks = {
  async afterEach(this: Mocha.Context) {
    const test = this.currentTest;
    if (test?.state === 'failed') {
      const name = `failure-${test
        .fullTitle()
        .replace(/[^a-z0-9]+/gi, '-')
        .slice(0, 80)}`;
      if (currentPage.page)
        await screenshot(currentPage.page, name)
          .then((file) => console.log(`    screenshot: ${file}`))
          .catch(() => undefined);
      const env = await e2eEnvironment().catch(() => undefined);
      if (env) console.log(`    --- Cortex output channel ---\n${cortexLog(env).split('\n').slice(-40).join('\n')}\n    ---`);
    }
    await currentPage.page?.close().catch(() => undefined);
    currentPage.page = undefined;
  },
  async afterAll() {
    await stopEnvironment();
  },
};

import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser, Frame, Page } from 'playwright-core';
import { SECURITY_KEYS } from '../../../src/core/config/configSchema';
import { startScriptedServer, type ScriptedServer } from '../../support/scriptedServer';
import { startCodeServer, type CodeServer } from './codeServer';
import { findPanelFrame, launchBrowser, openWorkbench } from './workbench';

// One scripted OpenAI server, one code-server with the packaged extension installed, and one
// Chromium for the whole e2e run (starting them takes seconds); each scenario gets a fresh
// workspace folder, its own user settings and its own page.

export const ROOT = resolve(__dirname, '..', '..', '..');
export const ARTIFACTS = join(ROOT, 'test-artifacts');

export interface E2eEnvironment {
  server: ScriptedServer;
  codeServer: CodeServer;
  browser: Browser;
  home: string;
}

let environment: Promise<E2eEnvironment> | undefined;

export function baseSettings(server: ScriptedServer): Record<string, unknown> {
  return {
    'security.workspace.trust.enabled': false,
    'workbench.startupEditor': 'none',
    // Every scenario's browser context is a new profile: without this, Cortex would greet each one
    // with its walkthrough (the welcome scenario turns it back on). Machine scope: see openWorkspace.
    'workbench.welcomePage.walkthroughs.openOnInstall': false,
    'workbench.tips.enabled': false,
    'extensions.autoCheckUpdates': false,
    'extensions.autoUpdate': false,
    'telemetry.telemetryLevel': 'off',
    'chat.disableAIFeatures': true,
    'workbench.secondarySideBar.defaultVisibility': 'hidden',
    'cortex.llm.baseUrl': server.baseUrl,
    'cortex.llm.model': 'scripted-model',
    'cortex.llm.maxRetries': 0,
    'cortex.llm.requestTimeoutSeconds': 30,
  };
}

export function e2eEnvironment(): Promise<E2eEnvironment> {
  environment ??= (async () => {
    const vsix = process.env.CORTEX_E2E_VSIX;
    if (!vsix)
      throw new Error('CORTEX_E2E_VSIX is not set: run the suite through `npm run test:e2e` (test/e2e/runE2e.mjs), which packages the extension first.');
    mkdirSync(ARTIFACTS, { recursive: true });
    const home = realpathSync(mkdtempSync(join(tmpdir(), 'cortex-e2e-')));
    const server = await startScriptedServer();
    const codeServer = await startCodeServer({ home, vsix, settings: baseSettings(server) });
    const browser = await launchBrowser();
    return { server, codeServer, browser, home };
  })();
  return environment;
}

export async function stopEnvironment(): Promise<void> {
  if (!environment) return;
  const env = await environment.catch(() => undefined);
  environment = undefined;
  if (!env) return;
  await env.browser.close().catch(() => undefined);
  await env.codeServer.stop();
  await env.server.close();
  if (!process.env.CORTEX_E2E_KEEP) rmSync(env.home, { recursive: true, force: true });
  else console.log(`e2e: kept ${env.home}`);
}

/** A fresh, empty workspace folder (real path, so it matches what VS Code reports). */
export function newWorkspace(env: E2eEnvironment, name: string, files: Record<string, string> = {}): string {
  const folder = join(env.home, 'workspaces', `${name}-${Date.now().toString(36)}`);
  mkdirSync(folder, { recursive: true });
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(join(folder, file, '..'), { recursive: true });
    writeFileSync(join(folder, file), content);
  }
  return realpathSync(folder);
}

/** Settings with `"scope": "machine"`: Cortex's security settings and one of VS Code's own. */
const MACHINE_SCOPED: ReadonlySet<string> = new Set([...SECURITY_KEYS, 'workbench.welcomePage.walkthroughs.openOnInstall']);

/**
 * Writes the settings (base + overrides) and opens `folder` in a new page. Machine-scoped settings
 * go to the Machine settings file: the extension host of a remote window like code-server reads
 * them only from there.
 */
export async function openWorkspace(env: E2eEnvironment, folder: string, settings: Record<string, unknown> = {}): Promise<Page> {
  const user: Record<string, unknown> = {};
  const machine: Record<string, unknown> = {};
  for (const [key, value] of Object.entries({ ...baseSettings(env.server), ...settings })) (MACHINE_SCOPED.has(key) ? machine : user)[key] = value;
  env.codeServer.writeUserSettings(user);
  env.codeServer.writeMachineSettings(machine);
  return openWorkbench(env.browser, env.codeServer.folderUrl(folder));
}

/** Text of the newest "Cortex" output channel log (for failure reports). */
export function cortexLog(env: E2eEnvironment): string {
  const file = cortexLogFile(env);
  return file ? readFileSync(file, 'utf8') : '(no Cortex output channel log yet)';
}

/** The newest "Cortex" output channel log file (each extension host session writes its own). */
export function cortexLogFile(env: E2eEnvironment): string | undefined {
  const logsRoot = join(env.codeServer.userDataDir, 'logs');
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/Cortex\.log$/.test(entry.name)) found.push(path);
    }
  };
  try {
    walk(logsRoot);
  } catch {
    return undefined;
  }
  found.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  return found[0];
}

export async function screenshot(page: Page, name: string): Promise<string> {
  const file = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file });
  return file;
}

export interface PanelHandle {
  frame: Frame;
  /** The step node whose description contains `text`. */
  node(text: string | RegExp): ReturnType<Frame['locator']>;
  /** Waits until the node's status class is `status-<status>`. */
  waitForStatus(text: string | RegExp, status: 'not_started' | 'in_progress' | 'completed' | 'failed' | 'blocked', timeout?: number): Promise<void>;
}

export async function cortexPanel(page: Page): Promise<PanelHandle> {
  const frame = await findPanelFrame(page, 60_000);
  // .node-label holds the step's text at every zoom (large when zoomed out, hidden beside the detail parts).
  const node = (text: string | RegExp) => frame.locator('.node', { has: frame.locator('.node-label', { hasText: text }) }).first();
  return {
    frame,
    node,
    waitForStatus: async (text, status, timeout = 60_000) => {
      const deadline = Date.now() + timeout;
      let last = '';
      while (Date.now() < deadline) {
        last =
          (await node(text)
            .getAttribute('class', { timeout: 1000 })
            .catch(() => null)) ?? '(no such node)';
        if (last.split(/\s+/).includes(`status-${status}`)) return;
        await page.waitForTimeout(200);
      }
      throw new Error(
        `step "${text}" did not reach ${status} within ${timeout} ms (classes: ${last}); panel text: ${(
          await frame
            .locator('body')
            .innerText()
            .catch(() => '?')
        ).slice(0, 1500)}`,
      );
    },
  };
}

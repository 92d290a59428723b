import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { codeServerEntry, installedCodeServer, node24Path } from '../../../scripts/ensureCodeServer.mjs';

// code-server (VS Code's workbench and extension host on npm) as the real VS Code for end-to-end
// tests: an isolated user-data/extensions/config folder per suite, the packaged .vsix installed the
// way a user would, and the server on 127.0.0.1 only.

export interface CodeServer {
  url: string;
  port: number;
  userDataDir: string;
  extensionsDir: string;
  /** Everything the server printed, for failure reports. */
  output(): string;
  /** Replaces the User settings.json (read when a window opens; an open window may not see the change). */
  writeUserSettings(settings: Record<string, unknown>): void;
  /**
   * Replaces the Machine settings.json. code-server is a remote window: settings with
   * `"scope": "machine"` (Cortex's security policy) are read from here, not from User settings.
   */
  writeMachineSettings(settings: Record<string, unknown>): void;
  /** `<url>/?folder=<abs>` */
  folderUrl(folder: string): string;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Environment for code-server: no API keys leak in, and all its state stays under `home`. */
function isolatedEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    XDG_CONFIG_HOME: join(home, 'config'),
    XDG_DATA_HOME: join(home, 'data'),
    XDG_CACHE_HOME: join(home, 'cache'),
  };
  delete env.OPENAI_API_KEY;
  delete env.VSCODE_IPC_HOOK_CLI;
  delete env.NODE_OPTIONS;
  return env;
}

export function installVsix(vsix: string, home: string): { userDataDir: string; extensionsDir: string } {
  const userDataDir = join(home, 'user-data');
  const extensionsDir = join(home, 'extensions');
  mkdirSync(join(userDataDir, 'User'), { recursive: true });
  mkdirSync(extensionsDir, { recursive: true });
  const result = spawnSync(
    node24Path(),
    [codeServerEntry(installedCodeServer()), '--user-data-dir', userDataDir, '--extensions-dir', extensionsDir, '--install-extension', vsix, '--force'],
    {
      env: isolatedEnv(home),
      encoding: 'utf8',
      timeout: 120_000,
    },
  );
  if (result.status !== 0 || !/was successfully installed/.test(result.stdout + result.stderr)) {
    throw new Error(`code-server could not install ${vsix} (exit ${result.status ?? result.signal}):\n${result.stdout}\n${result.stderr}`);
  }
  return { userDataDir, extensionsDir };
}

export async function startCodeServer(options: { home: string; vsix: string; settings: Record<string, unknown> }): Promise<CodeServer> {
  const { userDataDir, extensionsDir } = installVsix(options.vsix, options.home);
  const settingsFile = join(userDataDir, 'User', 'settings.json');
  const writeUserSettings = (settings: Record<string, unknown>) => writeFileSync(settingsFile, JSON.stringify(settings, null, 2));
  writeUserSettings(options.settings);
  const writeMachineSettings = (settings: Record<string, unknown>) => {
    mkdirSync(join(userDataDir, 'Machine'), { recursive: true });
    writeFileSync(join(userDataDir, 'Machine', 'settings.json'), JSON.stringify(settings, null, 2));
  };
  writeMachineSettings({});
  const port = await freePort();
  const configFile = join(options.home, 'code-server.yaml');
  writeFileSync(configFile, 'auth: none\n');
  let output = '';
  const child: ChildProcess = spawn(
    node24Path(),
    [
      codeServerEntry(installedCodeServer()),
      '--config',
      configFile,
      '--bind-addr',
      `127.0.0.1:${port}`,
      '--auth',
      'none',
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-getting-started-override',
      '--user-data-dir',
      userDataDir,
      '--extensions-dir',
      extensionsDir,
    ],
    { env: isolatedEnv(options.home), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`code-server exited (${child.exitCode}) before it was ready:\n${output}`);
    try {
      const response = await fetch(`${url}/healthz`);
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`code-server did not answer on ${url} within 60 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return {
    url,
    port,
    userDataDir,
    extensionsDir,
    output: () => output,
    writeUserSettings,
    writeMachineSettings,
    folderUrl: (folder) => `${url}/?folder=${encodeURIComponent(folder)}`,
    stop: async () => {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

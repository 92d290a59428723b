import { join } from 'node:path';
import { installVsix } from './codeServer';

// Test-only extensions (test/e2e/fixtures/<name>) packaged with vsce's API and installed next to
// Cortex in the suite's code-server, for what only another extension can do (call a language model
// tool, provide a language model).

export async function installFixtureExtension(name: string, home: string): Promise<void> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- vsce's API is CommonJS without types
  const vsce = require('@vscode/vsce') as { createVSIX(options: Record<string, unknown>): Promise<unknown> };
  const packagePath = join(home, `${name}.vsix`);
  await vsce.createVSIX({ cwd: join(__dirname, '..', 'fixtures', name), packagePath, dependencies: false, allowMissingRepository: true, skipLicense: true });
  installVsix(packagePath, home);
}

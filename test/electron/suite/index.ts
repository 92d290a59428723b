import { join } from 'node:path';
import Mocha from 'mocha';

/** Entry point VS Code's extension host calls (extensionTestsPath): runs the bundled suite with mocha. */
export function run(): Promise<void> {
  const mocha = new Mocha({ ui: 'bdd', timeout: 120_000, color: true });
  mocha.addFile(join(__dirname, 'runTask.test.js'));
  return new Promise((resolve, reject) => {
    mocha.run((failures) => (failures > 0 ? reject(new Error(`${failures} test(s) failed`)) : resolve()));
  });
}

import assert from 'node:assert/strict';
import { parseCliArgs, UsageError } from '../../../src/cli/cliArgs';

describe('cli arguments', () => {
  it('parses the documented contract', () => {
    const args = parseCliArgs(['run', '--workspace', 'ws', '--config', 'c.json', '--base-url', 'http://127.0.0.1:1/v1', '--model', 'm', '--fallback-model', 'a', '--fallback-model', 'b', '--trace', 't.jsonl', '--approve', 'all', 'do it'], '/cwd');
    assert.deepEqual(args, { task: 'do it', workspace: 'ws', configFile: 'c.json', baseUrl: 'http://127.0.0.1:1/v1', model: 'm', fallbackModels: ['a', 'b'], trace: 't.jsonl', approve: 'all', help: false });
  });
  it('defaults the workspace to the current directory', () => {
    assert.equal(parseCliArgs(['run', 'task'], '/here').workspace, '/here');
  });
  for (const [argv, pattern] of [
    [[], /missing command/],
    [['walk', 'x'], /unknown command "walk"/],
    [['run'], /missing task/],
    [['run', 'a', 'b'], /one quoted argument/],
    [['run', '--approve', 'some', 'x'], /--approve must be "all" or "none"/],
    [['run', '--bogus', 'x'], /bogus/],
  ] as const) {
    it(`rejects ${JSON.stringify(argv)} with one clear line`, () => {
      assert.throws(() => parseCliArgs([...argv], '/'), (error: Error) => error instanceof UsageError && pattern.test(error.message) && !error.message.includes('\n'));
    });
  }
});

import assert from 'node:assert/strict';
import { commandEnvironment, sanitizedPath, trustedPathEntries } from '../../../src/core/sandbox/commandEnvironment';

describe('commandEnvironment', () => {
  // On the allowlist, and passed on as they are (outside a sandbox).
  const kept = {
    HOME: '/home/u',
    LANG: 'en_US.UTF-8',
    LC_ALL: 'C',
    LC_TIME: 'C',
    USER: 'u',
    SHELL: '/bin/bash',
    TMPDIR: '/var/tmp/u',
  };
  const source = {
    PATH: '/usr/bin:.::bin:/usr/local/bin:/usr/bin',
    ...kept,
    TERM: 'xterm-256color',
    OPENAI_API_KEY: 'sk-secret',
    GITHUB_TOKEN: 'ghp-secret',
    SSH_AUTH_SOCK: '/tmp/agent',
    LD_PRELOAD: '/tmp/evil.so',
    NODE_OPTIONS: '--require /tmp/evil.js',
    GIT_DIR: '/elsewhere',
    BASH_ENV: '/tmp/evil.sh',
    MY_TOOL_HOME: '/opt/tool',
  };

  it('keeps the allowlist and the pass-through names, drops everything else, fixes the output variables', () => {
    const env = commandEnvironment(source, { passthrough: ['MY_TOOL_HOME'], sandboxed: false, platform: 'linux' });
    assert.deepEqual(env, {
      PATH: '/usr/bin:/usr/local/bin',
      ...kept,
      MY_TOOL_HOME: '/opt/tool',
      NO_COLOR: '1',
      TERM: 'dumb',
      PAGER: 'cat',
      GIT_PAGER: 'cat',
      GIT_TERMINAL_PROMPT: '0',
    });
  });

  it('points TMPDIR at the sandbox /tmp', () => {
    assert.equal(commandEnvironment(source, { passthrough: [], sandboxed: true, platform: 'linux' }).TMPDIR, '/tmp');
  });

  it('PATH loses empty and relative entries (they find programs in the working folder); none left means a default', () => {
    assert.equal(sanitizedPath('.:bin::/usr/bin:'), '/usr/bin');
    assert.equal(sanitizedPath(undefined), '/usr/local/bin:/usr/bin:/bin');
    assert.deepEqual(trustedPathEntries('/ws/node_modules/.bin:/usr/bin:/ws', '/ws'), ['/usr/bin']);
  });
});

import assert from 'node:assert/strict';
import { parseConfig } from '../../../src/core/config/configSchema';
import { compileProtectedPaths, DEFAULT_PROTECTED_PATHS, matchForms, protectedGlobProblem } from '../../../src/core/files/protectedPaths';
import { mapSettings } from '../../../src/host/settingsMapping';

const defaults = compileProtectedPaths(DEFAULT_PROTECTED_PATHS);

describe('protected path matcher', () => {
  it('default write globs: git folders anywhere, editor settings, workspace files, CI workflows', () => {
    const protectedPaths = [
      '.git',
      '.git/config',
      '.git/hooks/pre-commit',
      'sub/.git/config',
      'vendor/lib/.git',
      '.vscode',
      '.vscode/settings.json',
      '.vscode/tasks.json',
      'app/.vscode/launch.json',
      'X.code-workspace',
      'dev/team.code-workspace',
      '.github/workflows/ci.yml',
      '.github/actions/setup/action.yml',
      '.husky/pre-commit',
      '.devcontainer/devcontainer.json',
    ];
    for (const path of protectedPaths) assert.ok(defaults.match('write', path), `${path} should be protected for writing`);
    const ordinary = [
      '.gitignore',
      '.gitattributes',
      'git/config',
      'my.git/config',
      'src/.git-keep',
      'vscode/settings.json',
      'code-workspace',
      '.github/README.md',
      '.github/CODEOWNERS',
      'docs/.github/workflows/x.yml',
      'src/index.ts',
    ];
    for (const path of ordinary) assert.equal(defaults.match('write', path), undefined, `${path} should not be protected for writing`);
  });

  it('default read globs: env files and private keys at any depth, not look-alikes', () => {
    for (const path of [
      '.env',
      '.env.local',
      'config/.env.production',
      'server.pem',
      'certs/ca.pem',
      'tls/server.key',
      'keys/id_rsa',
      'id_ed25519',
      'home/.ssh/id_ecdsa.pub',
      'store.p12',
      '.netrc',
      '.npmrc',
    ]) {
      assert.ok(defaults.match('read', path), `${path} should be protected for reading`);
    }
    for (const path of ['environment.ts', 'src/id_generator.ts', 'id_map.json', 'pem.md', 'README.md', 'keys/public.txt']) {
      assert.equal(defaults.match('read', path), undefined, `${path} should not be protected for reading`);
    }
    assert.equal(defaults.match('read', '.git/config'), undefined, 'write globs do not apply to reads');
    assert.equal(defaults.match('write', '.env'), undefined, 'read globs do not apply to writes');
  });

  it('names the glob that matched', () => {
    assert.equal(defaults.match('write', '.git/config'), '**/.git/**');
    assert.equal(defaults.match('read', 'a/server.pem'), '*.pem');
  });

  it('ignores case (case-insensitive disks) and Unicode normalization', () => {
    for (const path of ['.GIT/config', '.Git/Hooks/pre-commit', '.VSCode/settings.json', 'X.CODE-WORKSPACE', '.GitHub/Workflows/x.yml'])
      assert.ok(defaults.match('write', path), path);
    for (const path of ['.ENV', 'Server.PEM', 'ID_RSA']) assert.ok(defaults.match('read', path), path);
    const custom = compileProtectedPaths({ write: ['caf\u00e9/**'], read: [] });
    assert.ok(custom.match('write', 'cafe\u0301/menu.txt'), 'a decomposed é matches a composed one');
  });

  it('also matches the spellings Windows treats as the same file', () => {
    for (const path of [
      '.git./config',
      '.git /config',
      '.git::$INDEX_ALLOCATION/config',
      '.git\\config',
      '.vscode.\\settings.json',
      'X.code-workspace.',
      'X.code-workspace::$DATA',
    ]) {
      assert.ok(defaults.match('write', path), path);
    }
    assert.ok(defaults.match('read', '.env:stream'));
    assert.deepEqual(matchForms('A/B.txt'), ['a/b.txt']);
    assert.deepEqual(matchForms('.Git./Config'), ['.git./config', '.git/config']);
  });

  it('a trailing /** also matches the folder itself; a glob without / matches a name at any depth; ./ is ignored', () => {
    const rules = compileProtectedPaths({ write: ['./deploy/**', 'secrets.json'], read: ['private/*.txt'] });
    assert.ok(rules.match('write', 'deploy'));
    assert.ok(rules.match('write', 'deploy/prod/app.yml'));
    assert.equal(rules.match('write', 'deployment/x'), undefined);
    assert.ok(rules.match('write', 'a/b/secrets.json'));
    assert.ok(rules.match('read', 'private/a.txt'));
    assert.equal(rules.match('read', 'x/private/a.txt'), undefined, 'a glob with / is anchored at the workspace folder');
  });

  it('never matches the workspace folder itself', () => {
    const everything = compileProtectedPaths({ write: ['**'], read: ['*'] });
    assert.equal(everything.match('write', '.'), undefined);
    assert.equal(everything.match('read', ''), undefined);
    assert.ok(everything.match('write', 'a'));
  });

  it('refuses globs that cannot mean a workspace path', () => {
    const bad: Array<[string, RegExp]> = [
      ['', /empty/],
      ['  ', /empty/],
      ['/etc/**', /absolute/],
      ['C:/x', /absolute/],
      ['../outside/**', /'\.\.'/],
      ['a/../b', /'\.\.'/],
      ['.git\\**', /write paths with '\/'/],
      ['a\u0000b', /NUL/],
      ['x'.repeat(501), /longer than 500/],
    ];
    for (const [glob, message] of bad) {
      assert.match(protectedGlobProblem(glob) ?? 'accepted', message, JSON.stringify(glob));
      assert.throws(() => compileProtectedPaths({ write: [glob], read: [] }), /cortex\.policy\.protectedPaths\.write/);
    }
    for (const glob of [...DEFAULT_PROTECTED_PATHS.write, ...DEFAULT_PROTECTED_PATHS.read, 'a..b', '...', '[ab]*.{js,ts}'])
      assert.equal(protectedGlobProblem(glob), undefined, glob);
  });
});

describe('cortex.policy.protectedPaths setting', () => {
  it('defaults to the built-in lists, and a list given replaces only that list', () => {
    assert.deepEqual(parseConfig({})['cortex.policy.protectedPaths'], { write: [...DEFAULT_PROTECTED_PATHS.write], read: [...DEFAULT_PROTECTED_PATHS.read] });
    const custom = parseConfig({ 'cortex.policy.protectedPaths': { write: ['deploy/**'] } })['cortex.policy.protectedPaths'];
    assert.deepEqual(custom, { write: ['deploy/**'], read: [...DEFAULT_PROTECTED_PATHS.read] });
    assert.deepEqual(parseConfig({ 'cortex.policy.protectedPaths': { read: [] } })['cortex.policy.protectedPaths'].read, []);
  });

  it('a parsed default is a copy: changing it does not change the next default', () => {
    parseConfig({})['cortex.policy.protectedPaths'].write.push('changed');
    assert.ok(!parseConfig({})['cortex.policy.protectedPaths'].write.includes('changed'));
  });

  it('refuses bad values with a message naming the setting', () => {
    const bad: Array<[unknown, RegExp]> = [
      [{ write: ['/etc/**'] }, /cortex\.policy\.protectedPaths\.write\.0: "\/etc\/\*\*" is absolute/],
      [{ read: ['ok', '../x'] }, /cortex\.policy\.protectedPaths\.read\.1: .*'\.\.'/],
      [{ write: '.git/**' }, /cortex\.policy\.protectedPaths\.write/],
      [{ write: [], extra: [] }, /cortex\.policy\.protectedPaths: unknown key\(s\) extra/],
      [['.git/**'], /cortex\.policy\.protectedPaths/],
      [{ write: Array.from({ length: 501 }, (_, i) => `d${i}/**`) }, /cortex\.policy\.protectedPaths\.write/],
    ];
    for (const [value, message] of bad)
      assert.throws(() => parseConfig({ 'cortex.policy.protectedPaths': value }), message, JSON.stringify(value).slice(0, 80));
  });

  it('is a security setting: a workspace value is ignored and reported', () => {
    const mapped = mapSettings((key) => (key === 'cortex.policy.protectedPaths' ? { workspaceValue: { write: [], read: [] } } : undefined));
    assert.equal(mapped.input['cortex.policy.protectedPaths'], undefined);
    assert.deepEqual(mapped.ignoredWorkspaceKeys, ['cortex.policy.protectedPaths']);
  });
});

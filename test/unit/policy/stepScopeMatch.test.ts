import assert from 'node:assert/strict';
import { compileProtectedPaths, DEFAULT_PROTECTED_PATHS } from '../../../src/core/files/protectedPaths';
import type { StepScope } from '../../../src/core/plan/stepScope';
import { coveringCommand, folderInScope, judgeScope, scopeRelativePath, verdictUnderPlan, writeInScope } from '../../../src/core/policy/stepScopeMatch';
import { decideToolPolicy, type PolicyVerdict } from '../../../src/core/policy/toolPolicy';
import { fakeMcpTool } from '../mcp/fakeMcpTool';

// Step scopes (docs/design.md, “Step scopes and plan approval”): globs, command prefixes, shell
// syntax that never matches a prefix, protected paths never covered.

const matcher = compileProtectedPaths({ write: [...DEFAULT_PROTECTED_PATHS.write], read: [...DEFAULT_PROTECTED_PATHS.read] });
const scope: StepScope = { write: ['test/**', 'src/*.ts', 'README.md'], commands: ['npm test', 'npx eslint test/', 'npm install'] };
const ROOT = '/work/ws';
const BUILTIN = { kind: 'builtin' } as const;
const writeTool = {
  kind: 'write' as const,
  readOnly: false,
  origin: BUILTIN,
  fileAccesses: (args: { path: string }) => [{ path: args.path, access: 'write' as const }],
};
const commandTool = { kind: 'command' as const, readOnly: false, origin: BUILTIN };
const readTool = {
  kind: 'read' as const,
  readOnly: true,
  origin: BUILTIN,
  fileAccesses: (args: { path: string }) => [{ path: args.path, access: 'read' as const }],
};
const config = { 'cortex.policy.tools': {}, 'cortex.policy.commands': { allow: [], deny: ['^rm\\b'] } };

describe('step scope matching', () => {
  it('write globs: ** crosses folders, * stays in one, a literal path matches itself', () => {
    assert.equal(writeInScope(scope, 'test/date.test.js', matcher), true);
    assert.equal(writeInScope(scope, 'test/deep/nested/a.js', matcher), true);
    assert.equal(writeInScope(scope, 'src/a.ts', matcher), true);
    assert.equal(writeInScope(scope, 'src/lib/a.ts', matcher), false);
    assert.equal(writeInScope(scope, 'README.md', matcher), true);
    // As in find_files and `changed`: a glob without '/' matches a file name at any depth.
    assert.equal(writeInScope(scope, 'docs/README.md', matcher), true);
    assert.equal(writeInScope({ write: ['./README.md'] }, 'docs/README.md', matcher), true);
    assert.equal(writeInScope(scope, 'package.json', matcher), false);
    assert.equal(writeInScope(undefined, 'test/a.js', matcher), false);
  });

  it('a folder is in scope when a glob reaches inside it', () => {
    assert.equal(folderInScope(scope, 'test', matcher), true);
    assert.equal(folderInScope(scope, 'test/fixtures', matcher), true);
    assert.equal(folderInScope(scope, 'lib', matcher), false);
    assert.equal(folderInScope({ write: ['src/*.ts'] }, 'src/deep', matcher), false);
    assert.equal(writeInScope(scope, 'test', matcher), false, 'as a file, test is not test/**');
    const mkdir = { kind: 'write' as const, readOnly: false, fileAccesses: (args: { path: string }) => [{ path: args.path, access: 'write' as const }] };
    assert.equal(judgeScope({ tool: mkdir, args: { path: 'test/new' }, folders: true }, scope, ROOT, matcher).kind, 'covered');
    assert.equal(judgeScope({ tool: mkdir, args: { path: 'lib' }, folders: true }, scope, ROOT, matcher).kind, 'outside');
  });

  it('protected paths are never covered, even by a glob that matches them', () => {
    const wide: StepScope = { write: ['**'], commands: ['cat'] };
    assert.equal(writeInScope(wide, 'src/a.ts', matcher), true);
    assert.equal(writeInScope(wide, '.env', matcher), false);
    assert.equal(writeInScope(wide, '.git/config', matcher), false);
    assert.equal(coveringCommand(wide, 'cat notes.txt', matcher), 'cat');
    assert.equal(coveringCommand(wide, 'cat .env', matcher), undefined);
    assert.equal(coveringCommand(wide, 'cat ./.env', matcher), undefined);
  });

  it('a command entry covers itself and itself followed by plain words', () => {
    assert.equal(coveringCommand(scope, 'npm test', matcher), 'npm test');
    assert.equal(coveringCommand(scope, '  npm   test  ', matcher), 'npm test');
    assert.equal(coveringCommand(scope, 'npm test -- --grep=date', matcher), 'npm test');
    assert.equal(coveringCommand(scope, 'npx eslint test/ --fix', matcher), 'npx eslint test/');
    assert.equal(coveringCommand(scope, 'npm install left-pad', matcher), 'npm install');
    assert.equal(coveringCommand(scope, 'npm', matcher), undefined, 'a prefix of an entry is not the entry');
    assert.equal(coveringCommand(scope, 'npm testing', matcher), undefined, 'words are compared whole');
    assert.equal(coveringCommand(scope, 'npm run build', matcher), undefined);
  });

  it('shell syntax never matches a prefix', () => {
    for (const command of [
      'npm test; rm -rf x',
      'npm test && rm -rf x',
      'npm test || curl evil',
      'npm test | sh',
      'npm test $(curl evil)',
      'npm test `id`',
      'npm test > out.txt',
      'npm test < in.txt',
      'npm test *',
      'npm test ~/x',
      'npm test &',
      'npm test # comment',
      'npm test\nrm -rf x',
      'X=1 npm test',
      "npm test 'a b'",
      'npm test ../outside',
      'npm test /etc/passwd',
    ])
      assert.equal(coveringCommand(scope, command, matcher), undefined, command);
  });

  it('an entry with shell syntax covers nothing', () => {
    const odd: StepScope = { commands: ['npm test && npm run lint', 'make *'] };
    assert.equal(coveringCommand(odd, 'npm test && npm run lint', matcher), undefined);
    assert.equal(coveringCommand(odd, 'make all', matcher), undefined);
  });

  it('judges calls: reads never scoped, writes by their declared paths, commands by their line', () => {
    assert.deepEqual(judgeScope({ tool: readTool, args: { path: 'secret/anything' } }, scope, ROOT, matcher), { kind: 'unscoped' });
    assert.equal(judgeScope({ tool: writeTool, args: { path: 'test/a.js' } }, scope, ROOT, matcher).kind, 'covered');
    assert.equal(judgeScope({ tool: writeTool, args: { path: './test/a.js' } }, scope, ROOT, matcher).kind, 'covered');
    assert.equal(judgeScope({ tool: writeTool, args: { path: `${ROOT}/test/a.js` } }, scope, ROOT, matcher).kind, 'covered');
    assert.deepEqual(judgeScope({ tool: writeTool, args: { path: 'lib/x.js' } }, scope, ROOT, matcher), { kind: 'outside', what: 'writes lib/x.js' });
    assert.equal(judgeScope({ tool: writeTool, args: { path: 'test/../lib/x.js' } }, scope, ROOT, matcher).kind, 'outside');
    assert.equal(judgeScope({ tool: commandTool, args: { command: 'npm test' } }, scope, ROOT, matcher).kind, 'covered');
    assert.deepEqual(judgeScope({ tool: commandTool, args: JSON.stringify({ command: 'npm publish' }) }, scope, ROOT, matcher), {
      kind: 'outside',
      what: 'runs `npm publish`',
    });
    // A write tool that names no workspace file (memory) and MCP tools are not scoped.
    assert.deepEqual(judgeScope({ tool: { kind: 'write', readOnly: false }, args: { text: 'x' } }, scope, ROOT, matcher), { kind: 'unscoped' });
    assert.deepEqual(judgeScope({ tool: fakeMcpTool('srv', 'deploy'), args: {} }, scope, ROOT, matcher), { kind: 'unscoped' });
  });

  it('a write through a link is covered only when the file it reaches is in scope too', () => {
    const args = { path: 'src/link.ts' };
    const through = (real: string | undefined) => judgeScope({ tool: writeTool, args, realPaths: new Map([['src/link.ts', real]]) }, scope, ROOT, matcher);
    assert.equal(through('src/link.ts').kind, 'covered');
    assert.equal(through('src/real.ts').kind, 'covered');
    assert.equal(through('lib/target.ts').kind, 'outside');
    assert.equal(through('.git/config').kind, 'outside');
    assert.equal(through(undefined).kind, 'outside');
  });

  it('relative forms: outside the workspace is never a scope path', () => {
    assert.equal(scopeRelativePath(ROOT, 'a/b.ts'), 'a/b.ts');
    assert.equal(scopeRelativePath(ROOT, 'a\\b.ts'), 'a/b.ts');
    assert.equal(scopeRelativePath(ROOT, '/work/ws/a/b.ts'), 'a/b.ts');
    assert.equal(scopeRelativePath(ROOT, '/work/other/b.ts'), undefined);
    assert.equal(scopeRelativePath(ROOT, '../b.ts'), undefined);
    assert.equal(scopeRelativePath(ROOT, '.'), undefined);
  });
});

describe('the verdict under an approved plan', () => {
  const decide = (tool: typeof commandTool | typeof writeTool, args: unknown, extra: Partial<Parameters<typeof decideToolPolicy>[0]> = {}): PolicyVerdict =>
    decideToolPolicy({ toolName: tool.kind === 'command' ? 'run_command' : 'write_file', tool, args, config, trusted: true, ...extra });

  it('an in-scope command that would ask runs without asking', () => {
    const verdict = decide(commandTool, { command: 'npm test' });
    assert.equal(verdict.decision, 'confirm');
    const under = verdictUnderPlan(verdict, judgeScope({ tool: commandTool, args: { command: 'npm test' } }, scope, ROOT, matcher), scope);
    assert.equal(under.decision, 'allow');
    assert.match(under.reason, /inside the step's approved scope/);
  });

  it('an out-of-scope write that the defaults allow asks, and says it is drift', () => {
    const args = { path: 'lib/x.js' };
    const verdict = decide(writeTool, args);
    assert.equal(verdict.decision, 'allow');
    const under = verdictUnderPlan(verdict, judgeScope({ tool: writeTool, args }, scope, ROOT, matcher), scope);
    assert.equal(under.decision, 'confirm');
    assert.equal(under.required, false);
    assert.match(under.reason, /outside the step's approved scope: it writes lib\/x\.js/);
  });

  it('deny rules, confirm-required gates and protected files stay: a plan never approves those', () => {
    const wide: StepScope = { write: ['**'], commands: ['rm', 'npm test'] };
    const denied = decide(commandTool, { command: 'rm -rf build' });
    assert.equal(denied.decision, 'deny');
    assert.equal(verdictUnderPlan(denied, judgeScope({ tool: commandTool, args: { command: 'rm -rf build' } }, wide, ROOT, matcher), wide).decision, 'deny');

    const gate = decide(commandTool, { command: 'npm test' }, { config: { ...config, 'cortex.policy.tools': { run_command: 'confirm-required' } } });
    const underGate = verdictUnderPlan(gate, judgeScope({ tool: commandTool, args: { command: 'npm test' } }, wide, ROOT, matcher), wide);
    assert.equal(underGate.decision, 'confirm');
    assert.equal(underGate.required, true);

    const protectedWrite = decide(writeTool, { path: 'src/a.ts' }, { protectedAccess: [{ path: 'src/a.ts', access: 'write', glob: 'src/a.ts' } as never] });
    assert.equal(protectedWrite.decision, 'confirm');
    const underProtected = verdictUnderPlan(protectedWrite, judgeScope({ tool: writeTool, args: { path: 'src/a.ts' } }, wide, ROOT, matcher), wide);
    assert.equal(underProtected.decision, 'confirm');
  });
});

import assert from 'node:assert/strict';
import { parseConfig, type PolicyDecision } from '../../../src/core/config/configSchema';
import { decideToolPolicy, type ToolPolicyInput } from '../../../src/core/policy/toolPolicy';

const BUILTIN = { kind: 'builtin' } as const;
const READ = { kind: 'read', readOnly: true, origin: BUILTIN } as const;
const WRITE = { kind: 'write', readOnly: false, origin: BUILTIN } as const;
const COMMAND = { kind: 'command', readOnly: false, origin: BUILTIN } as const;
const OTHER = { kind: 'other', readOnly: false, origin: BUILTIN } as const;
const OTHER_READ_ONLY = { kind: 'other', readOnly: true, origin: BUILTIN } as const;

function decide(
  toolName: string,
  tool: ToolPolicyInput['tool'],
  options: { args?: unknown; tools?: Record<string, PolicyDecision>; commands?: { allow?: string[]; deny?: string[] }; trusted?: boolean } = {},
) {
  const config = parseConfig({ 'cortex.policy.tools': options.tools, 'cortex.policy.commands': options.commands });
  return decideToolPolicy({ toolName, tool, args: options.args ?? {}, config, trusted: options.trusted ?? true });
}

describe('decideToolPolicy', () => {
  describe('defaults', () => {
    it('allows read-only tools', () => {
      const verdict = decide('read_file', READ, { args: { path: 'a.ts' } });
      assert.deepEqual([verdict.decision, verdict.required, verdict.denyEffect], ['allow', false, 'continue']);
      assert.deepEqual(verdict.rules, ['default: read-only']);
    });

    it('allows read-only tools of kind other', () => {
      assert.equal(decide('recall', OTHER_READ_ONLY).decision, 'allow');
    });

    it('allows writes (the file tools stay inside the workspace)', () => {
      assert.equal(decide('write_file', WRITE).decision, 'allow');
    });

    it('asks to confirm run_command unless it is a default safe command of literal words', () => {
      const install = decide('run_command', COMMAND, { args: { command: 'npm install' } });
      assert.equal(install.decision, 'confirm');
      assert.equal(install.required, false);
      assert.equal(install.denyEffect, 'continue');
      assert.match(install.reason, /"npm" is not a default safe \(read-only\) command/);
      assert.equal(install.command?.decision, 'confirm');
      assert.equal(decide('run_command', COMMAND, { args: { command: 'git status' } }).decision, 'allow');
      assert.equal(decide('run_command', COMMAND, { args: { command: 'git status && ls' } }).decision, 'confirm', 'shell syntax always asks');
    });

    it('the approval reason names the interpreter a command hands code to', () => {
      const verdict = decide('run_command', COMMAND, { args: { command: `awk 'BEGIN{system("touch m")}'` }, commands: { deny: ['^touch'] } });
      assert.equal(verdict.decision, 'confirm');
      assert.match(verdict.reason, /; hands code to awk: deny rules cannot see inside it$/);
      assert.deepEqual(verdict.command?.handoffs, ['hands code to awk: deny rules cannot see inside it']);
      const underRule = decide('run_command', COMMAND, { args: { command: 'python3 -c x' }, tools: { run_command: 'confirm-required' } });
      assert.match(underRule.reason, /hands code to python3/, 'also when a tool rule made it ask');
      assert.doesNotMatch(decide('run_command', COMMAND, { args: { command: 'npm install' } }).reason, /hands code/);
    });

    it('denies a dangerous command by default, naming the segment', () => {
      const verdict = decide('run_command', COMMAND, { args: { command: 'ls; rm -rf /' } });
      assert.equal(verdict.decision, 'deny');
      assert.match(verdict.reason, /segment "rm -rf \/" is denied/);
      assert.deepEqual(verdict.rules, ['cortex.policy.commands']);
    });

    it('asks to confirm new tools of other kinds and unknown tools', () => {
      assert.equal(decide('mcp_deploy', OTHER).decision, 'confirm');
      const unknown = decide('mystery', undefined);
      assert.equal(unknown.decision, 'confirm');
      assert.match(unknown.reason, /not a known tool/);
    });

    it('asks to confirm a command tool whose command line is missing', () => {
      const verdict = decide('run_command', COMMAND, { args: { cmd: 'ls' } });
      assert.equal(verdict.decision, 'confirm');
      assert.match(verdict.reason, /missing/);
      assert.equal(verdict.command, undefined);
    });

    it('accepts the arguments as a JSON string', () => {
      assert.equal(decide('run_command', COMMAND, { args: JSON.stringify({ command: 'pwd' }) }).decision, 'allow');
      assert.equal(decide('run_command', COMMAND, { args: '{not json' }).decision, 'confirm');
    });
  });

  describe('configured rules and precedence (deny > confirm-required > confirm > allow)', () => {
    it('an exact tool rule replaces the default', () => {
      assert.equal(decide('write_file', WRITE, { tools: { write_file: 'confirm' } }).decision, 'confirm');
      assert.equal(decide('read_file', READ, { tools: { read_file: 'deny' } }).decision, 'deny');
      assert.equal(decide('mcp_deploy', OTHER, { tools: { mcp_deploy: 'allow' } }).decision, 'allow');
    });

    it('the wildcard rule applies to every tool', () => {
      assert.equal(decide('read_file', READ, { tools: { '*': 'confirm' } }).decision, 'confirm');
      assert.equal(decide('write_file', WRITE, { tools: { '*': 'deny' } }).decision, 'deny');
      assert.equal(decide('mcp_deploy', OTHER, { tools: { '*': 'allow' } }).decision, 'allow');
    });

    const combos: Array<[PolicyDecision, PolicyDecision, 'allow' | 'deny' | 'confirm', boolean]> = [
      ['allow', 'deny', 'deny', false],
      ['deny', 'allow', 'deny', false],
      ['allow', 'confirm', 'confirm', false],
      ['confirm', 'allow', 'confirm', false],
      ['confirm', 'confirm-required', 'confirm', true],
      ['confirm-required', 'confirm', 'confirm', true],
      ['confirm-required', 'deny', 'deny', false],
      ['deny', 'confirm-required', 'deny', false],
      ['allow', 'confirm-required', 'confirm', true],
      ['allow', 'allow', 'allow', false],
    ];
    for (const [exact, wildcard, decision, required] of combos) {
      it(`write_file=${exact} with *=${wildcard} → ${decision}${required ? ' (required)' : ''}`, () => {
        const verdict = decide('write_file', WRITE, { tools: { write_file: exact, '*': wildcard } });
        assert.equal(verdict.decision, decision);
        assert.equal(verdict.required, required);
        assert.equal(verdict.denyEffect, required ? 'block' : 'continue');
        assert.deepEqual(verdict.rules, [`cortex.policy.tools["write_file"] = ${exact}`, `cortex.policy.tools["*"] = ${wildcard}`]);
      });
    }

    it('the reason names the deciding rule', () => {
      const verdict = decide('write_file', WRITE, { tools: { write_file: 'allow', '*': 'deny' } });
      assert.match(verdict.reason, /wildcard rule cortex\.policy\.tools\["\*"\] = deny/);
    });

    it('a rule for another tool does not match', () => {
      assert.equal(decide('write_file', WRITE, { tools: { read_file: 'deny' } }).decision, 'allow');
    });

    it('run_command=allow lets uncovered commands run but never denied ones', () => {
      const tools = { run_command: 'allow' } as const;
      assert.equal(decide('run_command', COMMAND, { tools, args: { command: 'npm install' } }).decision, 'allow');
      assert.equal(decide('run_command', COMMAND, { tools, args: { command: 'npm install && sudo rm -rf x' } }).decision, 'deny');
      assert.equal(decide('run_command', COMMAND, { tools, commands: { deny: ['^npm publish'] }, args: { command: 'npm publish' } }).decision, 'deny');
    });

    it('run_command=allow still confirms a command that cannot be parsed', () => {
      const verdict = decide('run_command', COMMAND, { tools: { run_command: 'allow' }, args: { command: 'echo "oops' } });
      assert.equal(verdict.decision, 'confirm');
      assert.match(verdict.reason, /could not parse/);
    });

    it('run_command=confirm beats a command the rules allow', () => {
      assert.equal(decide('run_command', COMMAND, { tools: { run_command: 'confirm' }, args: { command: 'ls' } }).decision, 'confirm');
    });

    it('user command rules apply to run_command', () => {
      const commands = { allow: ['^npm test$'], deny: ['^git push'] };
      assert.equal(decide('run_command', COMMAND, { commands, args: { command: 'npm test' } }).decision, 'allow');
      assert.equal(decide('run_command', COMMAND, { commands, args: { command: 'npm test && git push origin main' } }).decision, 'deny');
      assert.equal(decide('run_command', COMMAND, { commands, args: { command: 'npm test && npm run lint' } }).decision, 'confirm');
    });

    it('confirm-required on run_command maps to a required gate that blocks on deny', () => {
      const verdict = decide('run_command', COMMAND, { tools: { run_command: 'confirm-required' }, args: { command: 'ls' } });
      assert.deepEqual([verdict.decision, verdict.required, verdict.denyEffect], ['confirm', true, 'block']);
    });

    it('a denied command beats confirm-required', () => {
      const verdict = decide('run_command', COMMAND, { tools: { run_command: 'confirm-required' }, args: { command: 'sudo ls' } });
      assert.deepEqual([verdict.decision, verdict.required, verdict.denyEffect], ['deny', false, 'continue']);
    });

    it('plain confirm is an optional approval whose deny lets the tool loop continue', () => {
      const verdict = decide('write_file', WRITE, { tools: { write_file: 'confirm' } });
      assert.deepEqual([verdict.decision, verdict.required, verdict.denyEffect], ['confirm', false, 'continue']);
    });
  });

  describe('untrusted workspace (read-only mode)', () => {
    it('denies every tool that is not read-only, whatever the rules say', () => {
      for (const [name, tool] of [
        ['write_file', WRITE],
        ['run_command', COMMAND],
        ['mcp_deploy', OTHER],
      ] as const) {
        const verdict = decide(name, tool, { trusted: false, tools: { '*': 'allow' }, args: { command: 'ls' } });
        assert.equal(verdict.decision, 'deny', name);
        assert.match(verdict.reason, /untrusted.*read-only/);
        assert.deepEqual(verdict.rules, ['untrusted-workspace']);
      }
    });

    it('denies unknown tools', () => {
      assert.equal(decide('mystery', undefined, { trusted: false }).decision, 'deny');
    });

    it('still allows read-only tools, and still applies rules to them', () => {
      assert.equal(decide('read_file', READ, { trusted: false }).decision, 'allow');
      assert.equal(decide('read_file', READ, { trusted: false, tools: { read_file: 'confirm' } }).decision, 'confirm');
      assert.equal(decide('read_file', READ, { trusted: false, tools: { '*': 'deny' } }).decision, 'deny');
    });
  });
});

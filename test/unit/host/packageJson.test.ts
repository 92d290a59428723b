import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { CONFIG_KEYS, FlatConfigSchema, parseConfig, SECURITY_KEYS } from '../../../src/core/config/configSchema';
import { WALKTHROUGH_ID } from '../../../src/host/welcome';

// package.json's contributes.configuration is what VS Code's settings UI validates and shows; the
// schema is what the agent enforces. They must describe the same settings.

const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8'));
const contributed: Record<string, any> = pkg.contributes.configuration.properties;
const schema = z.toJSONSchema(FlatConfigSchema, { io: 'input', unrepresentable: 'any' }) as { properties: Record<string, any> };

/** JSON types a property accepts, sorted; `anyOf` of single types flattened. */
function typesOf(property: any): string[] {
  if (property.anyOf) return property.anyOf.flatMap(typesOf).sort();
  return [property.type].flat().filter(Boolean).sort();
}

/** The non-null branch of a nullable schema property (where min/max/enum live). */
function valueBranch(property: any): any {
  return property.anyOf ? property.anyOf.find((branch: any) => branch.type !== 'null') : property;
}

describe('package.json contributes.configuration', () => {
  it('declares exactly the keys of FlatConfigSchema', () => {
    assert.deepEqual(Object.keys(contributed).sort(), [...CONFIG_KEYS].sort());
  });

  for (const key of CONFIG_KEYS) {
    describe(key, () => {
      const declared = contributed[key] ?? {};
      const expected = schema.properties[key];

      it('has the same JSON type(s)', () => {
        assert.deepEqual(typesOf(declared), typesOf(expected));
      });

      it('has the schema default', () => {
        assert.deepEqual(declared.default, (parseConfig({}) as Record<string, unknown>)[key]);
      });

      it('has a description', () => {
        assert.ok(typeof declared.description === 'string' && declared.description.length > 10, 'missing or too short description');
      });

      it('has the same minimum, maximum and enum', () => {
        const want = valueBranch(expected);
        for (const field of ['minimum', 'maximum', 'enum', 'maxItems', 'minLength'] as const) {
          assert.deepEqual(declared[field], want[field], `${field} differs`);
        }
        assert.deepEqual(declared.items?.type, want.items?.type, 'items.type differs');
        assert.deepEqual(declared.additionalProperties?.enum, want.additionalProperties?.enum, 'additionalProperties.enum differs');
      });

      it('accepts its own default and rejects a value of the wrong type', () => {
        assert.doesNotThrow(() => parseConfig({ [key]: declared.default }));
        assert.throws(() => parseConfig({ [key]: Symbol.for('not a setting value') }), /Invalid Cortex settings/);
      });
    });
  }

  it('scopes security settings to the user/machine and restricts them in untrusted workspaces', () => {
    const restricted: string[] = pkg.capabilities.untrustedWorkspaces.restrictedConfigurations;
    assert.equal(pkg.capabilities.untrustedWorkspaces.supported, 'limited');
    for (const key of SECURITY_KEYS) {
      assert.ok(['machine', 'application'].includes(contributed[key].scope), `${key} scope is ${contributed[key].scope}`);
      assert.ok(restricted.includes(key), `${key} missing from restrictedConfigurations`);
    }
    for (const key of Object.keys(contributed)) {
      if (!SECURITY_KEYS.includes(key as never))
        assert.ok(!['machine', 'application'].includes(contributed[key].scope), `${key} should be settable per workspace`);
    }
  });
});

describe('package.json commands and activation', () => {
  const commands: Array<{ command: string; title: string; category?: string }> = pkg.contributes.commands;

  it('contributes the Cortex commands under the Cortex category', () => {
    const ids = commands.map((c) => c.command).sort();
    assert.deepEqual(ids, [
      'cortex.cancelRun',
      'cortex.clearApiKey',
      'cortex.manageApprovals',
      'cortex.mcpServers',
      'cortex.openRun',
      'cortex.openTrace',
      'cortex.pickModel',
      'cortex.resumeRun',
      'cortex.retryRun',
      'cortex.runTask',
      'cortex.setApiKey',
      'cortex.showPanel',
      'cortex.useVscodeModels',
    ]);
    for (const command of commands) assert.equal(command.category, 'Cortex', command.command);
    assert.equal(commands.find((c) => c.command === 'cortex.runTask')?.title, 'Run agent task');
    assert.equal(commands.find((c) => c.command === 'cortex.openTrace')?.title, 'Open run trace…');
    assert.equal(commands.find((c) => c.command === 'cortex.resumeRun')?.title, 'Resume run…');
  });

  it('activates after start-up (to greet a new profile) and for a restored panel, on the supported engine', () => {
    assert.deepEqual([...pkg.activationEvents].sort(), ['onStartupFinished', 'onWebviewPanel:cortex.dag']);
    assert.equal(pkg.engines.vscode, '^1.100.0');
    assert.equal(pkg.main, './dist/extension.js');
  });

  it('registers every contributed command in the extension code', () => {
    const source = readFileSync(join(__dirname, '..', '..', '..', 'src', 'host', 'activate.ts'), 'utf8');
    for (const command of commands)
      assert.match(source, new RegExp(`register\\('${command.command.replace('.', '\\.')}'`), `${command.command} is contributed but not registered`);
  });
});

describe('package.json walkthrough', () => {
  const walkthroughs: Array<{
    id: string;
    title: string;
    steps: Array<{ id: string; title: string; description: string; media: { markdown?: string }; completionEvents?: string[] }>;
  }> = pkg.contributes.walkthroughs;
  const root = join(__dirname, '..', '..', '..');

  it('contributes the one walkthrough the first start opens', () => {
    assert.deepEqual(
      walkthroughs.map((w) => w.id),
      [WALKTHROUGH_ID],
    );
    assert.equal(walkthroughs[0].title, 'Get started with Cortex');
  });

  it('has the key-less, endpoint, API key and first task steps, each with a button that does it; the key-less one only when VS Code has models', () => {
    const steps = walkthroughs[0].steps;
    assert.deepEqual(
      steps.map((s) => s.title),
      ['Use a model you already have (no key)', 'Set the endpoint', 'Set the API key', 'Run a first task'],
    );
    const buttons = steps.map((s) => /\n\[[^\]]+\]\((command:[^)]+)\)$/.exec(s.description)?.[1]);
    assert.deepEqual(buttons, [
      'command:cortex.useVscodeModels',
      'command:workbench.action.openSettings?%5B%22cortex.llm%22%5D',
      'command:cortex.setApiKey',
      'command:cortex.runTask',
    ]);
    assert.deepEqual(JSON.parse(decodeURIComponent(String(buttons[1]).split('?')[1])), ['cortex.llm'], 'the settings button filters to cortex.llm');
    assert.equal((steps[0] as { when?: string }).when, 'cortex.vscodeModelsAvailable');
  });

  it('ticks the endpoint step when an endpoint is set and the first task only when a run completed', () => {
    const events = Object.fromEntries(walkthroughs[0].steps.map((s) => [s.id, s.completionEvents]));
    assert.deepEqual(events['cortex.setEndpoint'], ['onContext:cortex.endpointSet']);
    assert.deepEqual(events['cortex.runFirstTask'], ['onContext:cortex.firstRunCompleted'], 'running the command is not completing a task');
  });

  it('completes steps on what they ask for, and every markdown file exists in media/walkthrough', () => {
    // Context keys are set by activation or the run controller (setContext).
    const activation = ['activate.ts', 'runController.ts'].map((file) => readFileSync(join(root, 'src', 'host', file), 'utf8')).join('\n');
    const commandIds = pkg.contributes.commands.map((c: { command: string }) => c.command);
    for (const step of walkthroughs[0].steps) {
      const file = step.media.markdown ?? '';
      assert.match(file, /^media\/walkthrough\/[\w-]+\.md$/, step.id);
      assert.ok(existsSync(join(root, file)), `${file} is missing`);
      const events = step.completionEvents ?? [];
      assert.ok(events.length > 0, `${step.id} has no completion event`);
      for (const event of events) {
        const [kind, target] = event.split(':');
        if (kind === 'onCommand') assert.ok(commandIds.includes(target), `${event} names no contributed command`);
        else if (kind === 'onSettingChanged') assert.ok(CONFIG_KEYS.includes(target as never), `${event} names no setting`);
        else if (kind === 'onContext')
          assert.match(activation, new RegExp(`'${target.replace('.', '\\.')}'`), `${event}: the extension never sets that context key`);
        else assert.fail(`unexpected completion event ${event}`);
      }
    }
  });
});

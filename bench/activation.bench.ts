import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

// Extension activation cost: the time from `require('dist/extension.js')` to the end of
// `activate()` (against a stub `vscode` module, bench/activation/vscodeStub.cjs), in a fresh Node
// process each time, next to requiring an empty module in the same run (the floor of any require).
// Target: median activation under 50 ms. It also checks what activation did: every contributed
// command, the panel serializer and the approvals status bar entry registered, the walkthrough
// opened on a first start, and the agent core (dist/agentHost.js) NOT loaded; then that the first
// command does load it (its time is reported: that cost moved from start-up to first use).

const TARGET_MS = 50;
const ROUNDS = 15;
const FIRST_USE_ROUNDS = 5;

const root = resolve(__dirname, '..');
const probe = join(root, 'bench', 'activation', 'probe.cjs');
const extension = join(root, 'dist', 'extension.js');

interface Sample {
  requireMs: number;
  activateMs: number;
  totalMs: number;
  commandMs?: number;
  loaded: string[];
  recorded: { commands: string[]; serializers: string[]; statusBarItems: string[]; executed: string[]; messages: string[] };
}

function measure(args: string[]): Sample {
  const result = spawnSync(process.execPath, [probe, ...args], { cwd: root, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`probe ${args.join(' ')} failed (exit ${result.status}):\n${result.stderr}`);
  return JSON.parse(result.stdout.trim().split('\n').at(-1)!) as Sample;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const max = (values: number[]) => Math.max(...values);
const ms = (value: number) => `${value.toFixed(2)} ms`;

function main(): number {
  console.log('building the production bundles dist/extension.js and dist/agentHost.js…');
  const build = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--production', '--only=extension,agentHost'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (build.status !== 0) throw new Error(`the production build failed (exit ${build.status})`);

  const scratch = mkdtempSync(join(tmpdir(), 'cortex-activation-bench-'));
  const empty = join(scratch, 'empty.js');
  writeFileSync(empty, "'use strict';\n");
  const baseline: Sample[] = [];
  const activation: Sample[] = [];
  try {
    // Interleaved, so a busy moment on the machine hits both series alike.
    for (let i = 0; i < ROUNDS; i++) {
      baseline.push(measure([empty]));
      activation.push(measure([extension, '--activate', root]));
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  const firstUse = Array.from({ length: FIRST_USE_ROUNDS }, () => measure([extension, '--activate', root, '--then', 'cortex.showPanel']));

  const problems: string[] = [];
  const contributed: string[] = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).contributes.commands.map((c: { command: string }) => c.command);
  const seen = activation[0].recorded;
  for (const command of contributed) if (!seen.commands.includes(command)) problems.push(`activate() did not register ${command}`);
  if (!seen.serializers.includes('cortex.dag')) problems.push('activate() did not register the cortex.dag panel serializer');
  if (!seen.statusBarItems.includes('cortex.approvals')) problems.push('activate() did not create the approvals status bar entry');
  if (!seen.executed.includes('workbench.action.openWalkthrough')) problems.push('activate() did not open the walkthrough on a first start');
  for (const sample of activation)
    if (sample.loaded.some((file) => file !== 'extension.js')) problems.push(`activation loaded ${sample.loaded.join(', ')}: only extension.js may load`);
  if (!firstUse[0].loaded.includes('agentHost.js'))
    problems.push(`the first command did not load dist/agentHost.js (loaded: ${firstUse[0].loaded.join(', ')})`);

  const total = activation.map((s) => s.totalMs);
  console.log(`\n${ROUNDS} fresh processes each (Node ${process.versions.node}):`);
  console.log(`  require of an empty module:         median ${ms(median(baseline.map((s) => s.requireMs)))}, max ${ms(max(baseline.map((s) => s.requireMs)))}`);
  console.log(`  require dist/extension.js:          median ${ms(median(activation.map((s) => s.requireMs)))}`);
  console.log(`  activate():                         median ${ms(median(activation.map((s) => s.activateMs)))}`);
  console.log(`  activation (require + activate):    median ${ms(median(total))}, max ${ms(max(total))} (target < ${TARGET_MS} ms)`);
  console.log(
    `  first command after activation (loads the agent core), ${FIRST_USE_ROUNDS} runs: median ${ms(median(firstUse.map((s) => s.commandMs ?? NaN)))}`,
  );
  const ok = median(total) < TARGET_MS;
  if (!ok) problems.push(`activation takes ${ms(median(total))} (median), over the ${TARGET_MS} ms target`);
  for (const problem of problems) console.log(`  MISSED: ${problem}`);
  console.log(problems.length === 0 ? '  ok' : '');
  return problems.length === 0 ? 0 : 1;
}

try {
  process.exit(main());
} catch (error) {
  console.error(error);
  process.exit(1);
}

// The layer rules of the code base (README, "Code layout"), checked by `npm run lint`.

/** The inner layers of src/core, lowest first (docs/design.md, "The core's inner layers"). */
const LEAVES = ['text', 'files', 'config'];
const FEATURES = ['checkpoints', 'context', 'instructions', 'memory', 'mcp', 'report', 'resume', 'trace', 'usage', 'verify'];
const CORE_FOLDERS = [...LEAVES, 'llm', 'plan', 'policy', 'sandbox', 'tools', ...FEATURES, 'agent'];

/** A rule: the files of `layer` folders import from src/core only their own layer, `below`, and ports.ts. */
function coreLayer(name, layer, below) {
  const own = `^src/core/(${layer.join('|')})/`;
  const allowed = [...layer, ...below];
  return {
    name,
    comment: `src/core/{${layer.join(',')}} may import only ${allowed.join(', ')} and ports.ts inside src/core.`,
    severity: 'error',
    from: { path: own },
    to: { path: '^src/core/', pathNot: `^src/core/(${allowed.join('|')})/|^src/core/ports\\.ts$` },
  };
}
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'core-is-pure',
      comment: 'src/core is shared by the extension and the CLI: no vscode, no adapters, no CLI, no webview.',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { path: ['^src/(host|panel|cli|protocol)/', '^src/extension\\.ts$', '^webview/'] },
    },
    {
      name: 'core-has-no-vscode',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { path: '^vscode$', dependencyTypes: ['core', 'npm', 'npm-dev', 'unknown', 'undetermined', 'type-only'] },
    },
    {
      name: 'protocol-imports-only-core-types',
      comment: 'The postMessage protocol is shared by host and webview; it may use core types and zod only.',
      severity: 'error',
      from: { path: '^src/protocol/' },
      to: { pathNot: ['^src/protocol/', '^src/core/', '^node_modules/zod/'] },
    },
    {
      name: 'webview-imports-protocol-and-core-only',
      severity: 'error',
      from: { path: '^webview/' },
      to: { path: ['^src/(host|panel|cli)/', '^src/extension\\.ts$', '^vscode$'] },
    },
    {
      name: 'webview-uses-no-node',
      severity: 'error',
      from: { path: '^webview/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'panel-does-not-import-host',
      severity: 'error',
      from: { path: '^src/panel/' },
      to: { path: '^src/host/' },
    },
    {
      name: 'cli-does-not-import-vscode-adapters',
      severity: 'error',
      from: { path: '^src/cli/' },
      to: { path: ['^src/(host|panel)/', '^src/extension\\.ts$', '^vscode$', '^webview/'] },
    },
    // The core's inner layers (docs/design.md, "The core's inner layers"), lowest first: each folder
    // imports only from its own layer and the layers below it. Written as "may import only", so a
    // new folder is refused until it is given its place here and in the design document.
    //   leaves: text, files (the file kernel), config (the settings schema and its pieces), ports.ts
    //   -> llm -> plan -> policy, sandbox -> tools -> features -> agent
    {
      name: 'core-folder-has-a-layer',
      comment: 'Every folder of src/core has its place in the inner layers: add a new one to these rules and to docs/design.md.',
      severity: 'error',
      from: { path: '^src/core/', pathNot: `^src/core/(${CORE_FOLDERS.join('|')})/|^src/core/ports\\.ts$` },
      to: { path: '^src/core/' },
    },
    coreLayer('core-leaves-import-only-leaves', LEAVES, []),
    coreLayer('core-llm-imports-only-leaves', ['llm'], LEAVES),
    coreLayer('core-plan-imports-only-llm-and-leaves', ['plan'], ['llm', ...LEAVES]),
    coreLayer('core-policy-sandbox-import-only-plan-and-below', ['policy', 'sandbox'], ['plan', 'llm', ...LEAVES]),
    coreLayer('core-tools-import-only-policy-sandbox-and-below', ['tools'], ['policy', 'sandbox', 'plan', 'llm', ...LEAVES]),
    coreLayer('core-features-do-not-import-agent', FEATURES, [...FEATURES, 'tools', 'policy', 'sandbox', 'plan', 'llm', ...LEAVES]),
    {
      name: 'core-no-folder-cycle',
      comment: 'No two folders of src/core import each other, even through others: features may use features, never in a circle.',
      severity: 'error',
      scope: 'folder',
      from: { path: '^src/core/' },
      to: { path: '^src/core/', circular: true },
    },
    {
      name: 'tests-do-not-import-benchmarks',
      severity: 'error',
      from: { path: '^test/' },
      to: { path: '^bench/' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: { path: '^(src|webview)/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['^dist/', '^node_modules/'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};

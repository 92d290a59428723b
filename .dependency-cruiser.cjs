// The layer rules of the code base (README, "Code layout"), checked by `npm run lint`.
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
    {
      name: 'plan-does-not-import-agent',
      severity: 'error',
      from: { path: '^src/core/plan/' },
      to: { path: '^src/core/agent/' },
    },
    {
      name: 'llm-does-not-import-plan',
      severity: 'error',
      from: { path: '^src/core/llm/' },
      to: { path: '^src/core/plan/' },
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

// One measurement in a fresh process (so nothing is cached): the time to require a module and,
// with --activate, to run its activate() against the stub `vscode` module; with --then <command>,
// the time of that command's first run afterwards (which loads the agent core). Prints one JSON
// line: { requireMs, activateMs, totalMs, commandMs, loaded: [files under the module's folder], recorded }.
// Usage: node probe.cjs <module.js> [--activate <extension root> [--then <command id>]]
'use strict';
const Module = require('node:module');
const path = require('node:path');

const stubPath = require.resolve('./vscodeStub.cjs');
const stub = require(stubPath);
// Resolve `vscode` to the stub (VS Code's extension host does the same with the real API).
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return request === 'vscode' ? stubPath : resolveFilename.call(this, request, ...rest);
};

async function main() {
  const target = path.resolve(process.argv[2]);
  const activateAt = process.argv.indexOf('--activate');
  const context = activateAt > 0 ? stub.context(path.resolve(process.argv[activateAt + 1])) : undefined;
  const t0 = performance.now();
  const loadedModule = require(target);
  const t1 = performance.now();
  if (context) await loadedModule.activate(context);
  const t2 = performance.now();
  const thenAt = process.argv.indexOf('--then');
  let commandMs;
  if (thenAt > 0) {
    const handler = stub.recorded.handlers.get(process.argv[thenAt + 1]);
    if (!handler) throw new Error(`activate() registered no command ${process.argv[thenAt + 1]}`);
    await handler();
    commandMs = performance.now() - t2;
  }
  // Let fire-and-forget work started by activate() settle before reporting what was loaded.
  await new Promise((resolve) => setTimeout(resolve, 20));
  const folder = path.dirname(target);
  const loaded = Object.keys(require.cache)
    .filter((file) => file.startsWith(folder + path.sep))
    .map((file) => path.relative(folder, file));
  const { recorded } = stub;
  const summary = {
    commands: recorded.commands,
    serializers: recorded.serializers,
    statusBarItems: recorded.statusBarItems.map((item) => item.id),
    executed: recorded.executed.map((args) => args[0]),
  };
  summary.messages = recorded.messages;
  process.stdout.write(`${JSON.stringify({ requireMs: t1 - t0, activateMs: t2 - t1, totalMs: t2 - t0, commandMs, loaded, recorded: summary })}\n`);
  if (context) for (const disposable of context.subscriptions) disposable.dispose();
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join, relative } from 'node:path';
import { build } from 'esbuild';
import ts from 'typescript';

// Synchronous file-system calls are made only in functions whose names say so (docs/design.md,
// “Workspace tools”): a reader sees at every call site that it holds the thread, which in the
// editor is the extension host's. Checked here over every source file with the TypeScript parser.

const ROOT = join(__dirname, '..', '..');
const SYNC_FS_CALLS = new Set(Object.keys(fs).filter((name) => name.endsWith('Sync')));

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The name of the nearest named function around `node` (an arrow or a function expression takes its variable's or property's name). */
function enclosingName(node: ts.Node): string {
  for (let at: ts.Node | undefined = node.parent; at; at = at.parent) {
    if ((ts.isFunctionDeclaration(at) || ts.isMethodDeclaration(at) || ts.isGetAccessor(at)) && at.name) return at.name.getText();
    if (ts.isArrowFunction(at) || ts.isFunctionExpression(at)) {
      const owner = at.parent;
      if ((ts.isVariableDeclaration(owner) || ts.isPropertyAssignment(owner) || ts.isPropertyDeclaration(owner)) && owner.name) return owner.name.getText();
    }
    if (ts.isConstructorDeclaration(at)) return 'constructor';
  }
  return '(module)';
}

/** `file:line in name: call` for each synchronous fs call outside a function named …Sync. */
function violations(file: string, text: string): string[] {
  return syncCalls(file, text)
    .filter((call) => !call.name.endsWith('Sync'))
    .map((call) => `${relative(ROOT, file)}:${call.line} in ${call.name}: ${call.callee}`);
}

/** Every synchronous fs call of a source file, with the function it is made in. */
function syncCalls(file: string, text: string): Array<{ name: string; line: number; callee: string }> {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  // What this file imports from node:fs: named functions (by their local name) and namespaces.
  const named = new Map<string, string>();
  const namespaces = new Set<string>();
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    if (statement.moduleSpecifier.text !== 'node:fs' && statement.moduleSpecifier.text !== 'fs') continue;
    const bindings = statement.importClause?.namedBindings;
    if (statement.importClause?.name) namespaces.add(statement.importClause.name.text);
    if (bindings && ts.isNamespaceImport(bindings)) namespaces.add(bindings.name.text);
    if (bindings && ts.isNamedImports(bindings))
      for (const element of bindings.elements) named.set(element.name.text, (element.propertyName ?? element.name).text);
  }
  const fsFunction = (callee: ts.Expression): string | undefined => {
    if (ts.isIdentifier(callee)) return named.get(callee.text);
    if (ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.expression) && namespaces.has(callee.expression.text)) return callee.name.text;
    return undefined;
  };
  const found: Array<{ name: string; line: number; callee: string }> = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      const callee = fsFunction(node.expression) ?? '';
      if (SYNC_FS_CALLS.has(callee)) found.push({ name: enclosingName(node), line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1, callee });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('synchronous file calls', () => {
  it('are made only in functions whose names end in Sync', () => {
    const found = sourceFiles(join(ROOT, 'src')).flatMap((file) => violations(file, fs.readFileSync(file, 'utf8')));
    assert.deepEqual(found, []);
  });

  it("are not in the extension host's bundle, but for the run lock's release by an exiting process and the reading of /proc", async function () {
    this.timeout(30_000);
    // What esbuild keeps when it bundles the extension's agent host (tree shaking drops what the
    // host cannot reach): the functions of Cortex's own code that make a synchronous call.
    const holders = new Set(sourceFiles(join(ROOT, 'src')).flatMap((file) => syncCalls(file, fs.readFileSync(file, 'utf8')).map((call) => call.name)));
    const result = await build({
      entryPoints: [join(ROOT, 'src', 'host', 'agentHost.ts')],
      absWorkingDir: ROOT,
      bundle: true,
      platform: 'node',
      format: 'esm',
      external: ['vscode', './o200k'],
      write: false,
      logLevel: 'silent',
    });
    const bundle = result.outputFiles[0].text;
    const inBundle = [...holders].filter((name) => new RegExp(`function ${name}\\d*\\(|\\b${name}\\d*: `).test(bundle)).sort();
    // The run lock's releaseSync (removeIfUnchangedSync, through readRegularSync and
    // openRegularSync): only the CLI's exit handler calls it, but every lock object carries it;
    // readProcStatSync reads /proc/PID/stat, which is no disk.
    assert.deepEqual(inBundle, ['openRegularSync', 'readProcStatSync', 'readRegularSync', 'removeIfUnchangedSync']);
    // memoryFileNameSync is the CLI's (its memory file's default name), in the same module as the host's memoryFileIn.
    assert.ok(holders.has('memoryFileNameSync') && !inBundle.includes('memoryFileNameSync'), 'the check tells a function left out from one kept');
  });

  it('the check sees a call in a plain function, a method, a callback and through the namespace, and accepts one in a …Sync function or a method of another object', () => {
    const sample = [
      "import fs, { readFileSync, existsSync } from 'node:fs';",
      'export function load(file: string) { return readFileSync(file); }',
      'class A { read(f: string) { return [f].filter((x) => existsSync(x)); } }',
      'export function loadSync(file: string) { return [file].map((f) => readFileSync(f)); }',
      'const save = () => fs.writeFileSync("x", "y");',
      'export async function close(w: { closeSync(): void }) { w.closeSync(); }',
    ].join('\n');
    assert.deepEqual(violations(join(ROOT, 'sample.ts'), sample), [
      'sample.ts:2 in load: readFileSync',
      'sample.ts:3 in read: existsSync',
      'sample.ts:5 in save: writeFileSync',
    ]);
  });
});

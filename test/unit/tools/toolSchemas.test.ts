import assert from 'node:assert/strict';
import { parseConfig } from '../../../src/core/config/configSchema';
import { validateToolArguments } from '../../../src/core/tools/argumentValidator';
import { builtinTools, createBuiltinRegistry } from '../../../src/core/tools/workspace/builtinTools';

// The JSON Schema each built-in tool shows the model, plus accept and reject cases run through
// the same validator the pipeline uses.

interface SchemaCase {
  properties: string[];
  required: string[];
  accept: Array<Record<string, unknown>>;
  reject: Array<[unknown, RegExp]>;
}

const CASES: Record<string, SchemaCase> = {
  read_file: {
    properties: ['path', 'start_line', 'end_line'],
    required: ['path'],
    accept: [{ path: 'a.ts' }, { path: 'a.ts', start_line: 1, end_line: 10 }],
    reject: [
      [{}, /missing required field\(s\): path/],
      [{ path: 'a', start_line: 0 }, /field 'start_line'/],
      [{ path: 'a', start_line: 1.5 }, /field 'start_line'/],
      [{ path: 'a', line: 3 }, /unknown field\(s\): line/],
      [{ path: 7 }, /field 'path' must be string, got integer/],
    ],
  },
  write_file: {
    properties: ['path', 'content'],
    required: ['path', 'content'],
    accept: [{ path: 'a', content: '' }],
    reject: [
      [{ path: 'a' }, /missing required field\(s\): content/],
      [{ content: 'x' }, /missing required field\(s\): path/],
      [{ path: '', content: 'x' }, /field 'path'/],
      [{ path: 'a', content: 'x', mode: 'append' }, /unknown field\(s\): mode/],
    ],
  },
  edit_file: {
    properties: ['path', 'old_text', 'new_text', 'replace_all'],
    required: ['path', 'old_text', 'new_text'],
    accept: [
      { path: 'a', old_text: 'x', new_text: '' },
      { path: 'a', old_text: 'x', new_text: 'y', replace_all: true },
    ],
    reject: [
      [{ path: 'a', old_text: '', new_text: 'y' }, /field 'old_text'/],
      [{ path: 'a', old_text: 'x' }, /missing required field\(s\): new_text/],
      [{ path: 'a', old_text: 'x', new_text: 'y', replace_all: 'yes' }, /field 'replace_all' must be boolean, got string/],
    ],
  },
  list_directory: {
    properties: ['path'],
    required: [],
    accept: [{}, { path: 'src' }],
    reject: [
      [{ path: '' }, /field 'path'/],
      [{ dir: 'src' }, /unknown field\(s\): dir/],
    ],
  },
  create_directory: {
    properties: ['path'],
    required: ['path'],
    accept: [{ path: 'a/b' }],
    reject: [
      [{}, /missing required field\(s\): path/],
      [{ path: ['a'] }, /must be string, got array/],
    ],
  },
  find_files: {
    properties: ['pattern', 'path', 'max_results'],
    required: ['pattern'],
    accept: [{ pattern: '**/*.ts' }, { pattern: '*', path: 'src', max_results: 1000 }],
    reject: [
      [{}, /missing required field\(s\): pattern/],
      [{ pattern: '*', max_results: 1001 }, /field 'max_results'/],
      [{ pattern: '*', recursive: true }, /unknown field\(s\): recursive/],
    ],
  },
  search_text: {
    properties: ['pattern', 'path', 'glob', 'case_sensitive', 'max_results'],
    required: ['pattern'],
    accept: [{ pattern: 'foo' }, { pattern: 'foo', path: 'src', glob: '*.ts', case_sensitive: false, max_results: 5 }],
    reject: [
      [{ query: 'foo' }, /missing required field\(s\): pattern; unknown field\(s\): query/],
      [{ pattern: 'foo', max_results: 0 }, /field 'max_results'/],
    ],
  },
  run_command: {
    properties: ['command', 'cwd', 'timeout_seconds'],
    required: ['command'],
    accept: [{ command: 'npm test' }, { command: 'ls', cwd: 'src', timeout_seconds: 30 }],
    reject: [
      [{}, /missing required field\(s\): command/],
      [{ command: 'ls', timeout_seconds: 0 }, /field 'timeout_seconds'/],
      [{ command: ['ls', '-l'] }, /must be string, got array/],
      [{ cmd: 'ls' }, /unknown field\(s\): cmd/],
    ],
  },
};

describe('built-in tool schemas', () => {
  const registry = createBuiltinRegistry(parseConfig({}));

  it('covers every built-in tool and registers without conflicts', () => {
    assert.deepEqual(builtinTools.map((t) => t.name).sort(), Object.keys(CASES).sort());
    assert.deepEqual(
      registry.names(),
      builtinTools.map((t) => t.name),
    );
  });

  for (const [name, spec] of Object.entries(CASES)) {
    describe(name, () => {
      const tool = builtinTools.find((t) => t.name === name)!;

      it('sends a strict object schema with the expected fields', () => {
        const params = registry.parameters(name) as any;
        assert.equal(params.type, 'object');
        assert.equal(params.additionalProperties, false);
        assert.deepEqual(Object.keys(params.properties), spec.properties);
        assert.deepEqual(params.required ?? [], spec.required);
        for (const property of spec.properties) assert.equal(typeof params.properties[property].description, 'string', `${name}.${property} has a description`);
        assert.ok(tool.description.length > 20);
      });

      it('accepts valid arguments', () => {
        for (const args of spec.accept) assert.equal(validateToolArguments(tool.schema, args).ok, true, JSON.stringify(args));
      });

      it('rejects invalid arguments, naming the fields', () => {
        for (const [args, pattern] of spec.reject) {
          const result = validateToolArguments(tool.schema, args);
          assert.equal(result.ok, false, JSON.stringify(args));
          if (!result.ok) assert.match(result.error, pattern);
        }
      });
    });
  }

  it('marks only the reading tools read-only, and the untrusted registry shows only them', () => {
    const readOnly = createBuiltinRegistry(parseConfig({}), { trusted: false });
    assert.deepEqual(readOnly.names(), ['read_file', 'list_directory', 'find_files', 'search_text']);
    assert.deepEqual(
      builtinTools.filter((t) => t.readOnly).map((t) => t.name),
      readOnly.names(),
    );
    assert.equal(builtinTools.find((t) => t.name === 'run_command')!.kind, 'command');
  });

  it('applies configured aliases and refuses shadowing ones', () => {
    const aliased = createBuiltinRegistry(parseConfig({ 'cortex.tools.aliases': { cat: 'read_file' } }));
    assert.equal(aliased.resolve('cat').name, 'read_file');
    assert.equal(aliased.resolve('bash').name, 'run_command');
    assert.throws(
      () => createBuiltinRegistry(parseConfig({ 'cortex.tools.aliases': { read_file: 'write_file' } })),
      /alias 'read_file' → 'write_file' is shadowed/,
    );
  });
});

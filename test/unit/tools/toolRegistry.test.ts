import assert from 'node:assert/strict';
import { z } from 'zod';
import { createToolRegistry, DEFAULT_TOOL_ALIASES, readOnlyRegistry, ToolNameConflictError } from '../../../src/core/tools/toolRegistry';
import type { ToolDefinition } from '../../../src/core/tools/toolTypes';
import { builtinTools } from '../../../src/core/tools/workspace/builtinTools';

function tool(name: string, readOnly = true, schema: z.ZodType = z.strictObject({ path: z.string() })): ToolDefinition {
  return {
    name,
    description: `the ${name} tool`,
    schema,
    kind: readOnly ? 'read' : 'write',
    readOnly,
    origin: { kind: 'builtin' },
    idempotent: readOnly,
    changes: readOnly ? 'none' : 'files',
    run: async () => name,
  };
}

function conflictOf(fn: () => unknown): ToolNameConflictError {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof ToolNameConflictError, `expected ToolNameConflictError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected the registry to refuse');
}

describe('toolRegistry: resolution (exact → alias → normalized)', () => {
  const registry = createToolRegistry([tool('read_file'), tool('write_file', false), tool('memory_search')], { aliases: { cat: 'read_file' } });

  it('resolves an exact name first', () => {
    assert.deepEqual(registry.resolve('read_file'), { requestedName: 'read_file', name: 'read_file', resolution: 'exact' });
  });

  it('resolves configured and built-in aliases', () => {
    assert.equal(registry.resolve('cat').name, 'read_file');
    assert.equal(registry.resolve('cat').resolution, 'alias');
    assert.equal(registry.resolve('memory.search').name, 'memory_search');
    assert.equal(registry.resolve('memory.search').resolution, 'alias');
    assert.equal(DEFAULT_TOOL_ALIASES['memory.search'], 'memory_search');
  });

  it('falls back to the normalize key', () => {
    for (const drift of ['Write-File', 'writeFile', 'WRITE_FILE', 'functions.write_file']) {
      const resolved = registry.resolve(drift);
      assert.equal(resolved.name, 'write_file', drift);
      assert.equal(resolved.resolution, 'normalized', drift);
      assert.equal(resolved.requestedName, drift);
    }
  });

  it('reports unknown and missing names, keeping the requested name', () => {
    assert.deepEqual(registry.resolve('delete_everything'), { requestedName: 'delete_everything', name: 'delete_everything', resolution: 'unknown' });
    assert.equal(registry.resolve('').resolution, 'missing');
    assert.equal(registry.resolve('⚙').resolution, 'missing');
  });

  it('does not normalize when the fallback is off', () => {
    const strict = createToolRegistry([tool('write_file')], { normalizeFallback: false });
    assert.equal(strict.resolve('writeFile').resolution, 'unknown');
    assert.equal(strict.resolve('write_file').resolution, 'exact');
  });

  it('drops a default alias a real tool shadows, without error', () => {
    const withRead = createToolRegistry([tool('read'), tool('read_file')]);
    assert.deepEqual(withRead.resolve('read'), { requestedName: 'read', name: 'read', resolution: 'exact' });
  });
});

describe('toolRegistry: refusals at registration', () => {
  it('refuses duplicate names, naming them', () => {
    const error = conflictOf(() => createToolRegistry([tool('read_file'), tool('read_file'), tool('list')]));
    assert.match(error.message, /duplicate tool name 'read_file' \(registered 2 times\)/);
  });

  it('refuses names that collide on the normalize key', () => {
    const error = conflictOf(() => createToolRegistry([tool('foo-bar'), tool('foo_bar')]));
    assert.match(error.message, /'foo-bar' and 'foo_bar' all normalize to 'foo_bar'/);
  });

  it('allows normalize-key look-alikes when the fallback is off', () => {
    const registry = createToolRegistry([tool('foo-bar'), tool('foo_bar')], { normalizeFallback: false });
    assert.deepEqual(registry.names(), ['foo-bar', 'foo_bar']);
  });

  it('refuses an alias shadowed by a real tool', () => {
    const error = conflictOf(() => createToolRegistry([tool('echo'), tool('say')], { aliases: { echo: 'say' } }));
    assert.match(error.message, /alias 'echo' → 'say' is shadowed by the tool 'echo'/);
  });

  it('ignores a self-alias', () => {
    const registry = createToolRegistry([tool('echo')], { aliases: { echo: 'echo' } });
    assert.equal(registry.resolve('echo').resolution, 'exact');
    assert.deepEqual(registry.warnings, []);
  });

  it('lists every conflict in one error', () => {
    const error = conflictOf(() => createToolRegistry([tool('a_b'), tool('a-b'), tool('x'), tool('x')], { aliases: { x: 'a_b' } }));
    assert.equal(error.conflicts.length, 3);
  });

  it('refuses names an endpoint would refuse', () => {
    const error = conflictOf(() => createToolRegistry([tool('read file')]));
    assert.match(error.message, /invalid tool name "read file"/);
  });

  it('warns about an alias to no registered tool', () => {
    const registry = createToolRegistry([tool('read_file')], { aliases: { cat: 'nope' } });
    assert.equal(registry.resolve('cat').resolution, 'unknown');
    assert.match(registry.warnings[0], /'cat' → 'nope' points to no registered tool/);
  });
});

describe('toolRegistry: specs and visibility', () => {
  it('sends strict JSON Schemas without $schema, optional fields not required', () => {
    const registry = createToolRegistry([
      tool('read_file', true, z.object({ path: z.string(), limit: z.number().optional(), nested: z.object({ a: z.string() }) })),
    ]);
    const [spec] = registry.specs();
    assert.equal(spec.type, 'function');
    assert.equal(spec.function.name, 'read_file');
    const params = spec.function.parameters as any;
    assert.equal(params.$schema, undefined);
    assert.equal(params.type, 'object');
    assert.deepEqual(params.required, ['path', 'nested']);
    assert.equal(params.additionalProperties, false);
    assert.equal(params.properties.nested.additionalProperties, false);
    // Specs are made once and frozen: nobody can edit what the next request sends.
    assert.equal(registry.specs(), registry.specs());
    assert.throws(() => (params.properties.path.type = 'number'), TypeError);
    assert.equal((registry.specs()[0].function.parameters as any).properties.path.type, 'string');
  });

  it('the read-only view hides write tools from resolution, specs and get', () => {
    const full = createToolRegistry([tool('read_file'), tool('write_file', false)]);
    const readOnly = readOnlyRegistry(full);
    assert.deepEqual(readOnly.names(), ['read_file']);
    assert.deepEqual(
      readOnly.specs().map((s) => s.function.name),
      ['read_file'],
    );
    assert.equal(readOnly.get('write_file'), undefined);
    const hidden = readOnly.resolve('write_file');
    assert.equal(hidden.resolution, 'unknown');
    assert.equal(hidden.hidden, true);
    assert.equal(readOnly.resolve('writeFile').hidden, true);
    assert.equal(full.resolve('write_file').resolution, 'exact');
  });

  it('refuses a schema that cannot become JSON Schema', () => {
    const error = conflictOf(() => createToolRegistry([tool('weird', true, z.strictObject({ when: z.date() }))]));
    assert.match(error.message, /tool 'weird' has a schema that cannot be expressed as JSON Schema/);
  });

  it('the built-in tools declare their capabilities: reads change nothing and repeat safely, file tools announce files, run_command is scanned', () => {
    assert.deepEqual(
      builtinTools.map((t) => `${t.name} ${t.origin.kind} ${t.changes}${t.idempotent ? ' idempotent' : ''}`),
      [
        'read_file builtin none idempotent',
        'list_directory builtin none idempotent',
        'find_files builtin none idempotent',
        'search_text builtin none idempotent',
        'write_file builtin files',
        'edit_file builtin files',
        'create_directory builtin files',
        'run_command builtin workspace',
      ],
    );
  });
});

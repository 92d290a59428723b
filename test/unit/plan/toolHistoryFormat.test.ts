import assert from 'node:assert/strict';
import { addToolCallEvent, replaceSubgraphEvents, startStepEvent, updateToolResultEvent } from '../../../src/core/plan/planOperations';
import { formatCallSignature, formatToolHistory, truncateText } from '../../../src/core/plan/toolHistoryFormat';
import { appendAll, completeExampleUpstream, examplePlan, runStep, sid } from './planFixtures';

describe('toolHistoryFormat (the replanner input, docs/design.md, “The replanner”)', () => {
  it('formats completed steps as one block each, in the order asked', () => {
    const { log } = examplePlan();
    completeExampleUpstream(log);
    const text = formatToolHistory(log.state, [sid(0), sid(1), sid(4)], { includeOutput: false });
    assert.equal(
      text,
      [
        '### Step s1: Analyse requirements',
        'Tool calls:',
        '- read_file(path="requirements.md") → "Need a REST API..."',
        '',
        '### Step s2: Create project structure',
        'Tool calls:',
        '- create_directory(path="src/") → "Directory created"',
        '- create_directory(path="tests/") → "Directory created"',
        '',
        '### Step s5: Set up the database connection',
        'Tool calls:',
        '- write_file(path="src/database.py", content="engine = ...") → "File written"',
        '- run_command(command="python -c \'import sqlalchemy\'") → "OK"',
      ].join('\n'),
    );
  });

  it('shows outputs and steps without calls', () => {
    const { log } = examplePlan();
    completeExampleUpstream(log);
    assert.equal(formatToolHistory(log.state, [sid(2)]), '### Step s3: Plan the database\nTool calls: (none)\nOutput: "use sqlite"');
  });

  it('marks pending calls, errors and refusals', () => {
    const { log } = examplePlan();
    log.append(startStepEvent(log.state, sid(0)));
    log.append(addToolCallEvent(log.state, sid(0), { id: 'a', name: 'write_file', arguments: { path: 'src/api.py' } }));
    log.append(addToolCallEvent(log.state, sid(0), { id: 'b', name: 'run_command', arguments: { command: 'make' } }));
    log.append(addToolCallEvent(log.state, sid(0), { id: 'c', name: 'delete_file', arguments: { path: 'x' } }));
    log.append(updateToolResultEvent(log.state, sid(0), 'b', { status: 'error', result: 'exit code 2' }));
    log.append(updateToolResultEvent(log.state, sid(0), 'c', { status: 'rejected', result: 'denied by user' }));
    assert.equal(
      formatToolHistory(log.state, [sid(0)]),
      [
        '### Step s1: Analyse requirements',
        'Tool calls:',
        '- write_file(path="src/api.py") → status: "pending" ❌',
        '- run_command(command="make") → error: "exit code 2"',
        '- delete_file(path="x") → rejected: "denied by user"',
      ].join('\n'),
    );
  });

  it('truncates long values and results with a marker, keeping one line per call', () => {
    const { log } = examplePlan();
    const content = 'x'.repeat(1000) + '\nsecond line';
    runStep(log, sid(0), [{ name: 'write_file', args: { path: 'big.txt', content, mode: 420 }, result: 'y'.repeat(5000) }]);
    const text = formatToolHistory(log.state, [sid(0)], { maxValueChars: 50, maxResultChars: 100 });
    const line = text.split('\n')[2];
    assert.ok(
      line.startsWith(
        `- write_file(path="big.txt", content="${'x'.repeat(50)}…[truncated ${content.length - 50} chars]", mode=420) → "${'y'.repeat(100)}…[truncated 4900 chars]"`,
      ),
      line,
    );
    assert.equal(text.split('\n').length, 3);
  });

  it('shows unparseable arguments raw, and finds replaced steps', () => {
    assert.equal(formatCallSignature({ name: 'f', arguments: '{"a": ', rawArguments: '{"a": ' }), 'f({"a": )');
    assert.equal(formatCallSignature({ name: 'f', arguments: '', rawArguments: '' }), 'f()');
    assert.equal(truncateText('abcdef', 3), 'abc…[truncated 3 chars]');
    assert.equal(truncateText('abc', 3), 'abc');
    const { log, ids } = examplePlan();
    assert.throws(() => formatToolHistory(log.state, ['ghost']), /no step "ghost"/);
    completeExampleUpstream(log);
    runStep(log, sid(5), [{ name: 'write_file', args: { path: 'src/api.py' } }]);
    appendAll(
      log,
      replaceSubgraphEvents(log.state, {
        failedStepId: sid(5),
        newSteps: ['again'],
        newDependencies: {},
        attempt: 1,
        maxAttempts: 2,
        reason: 'r',
        newId: () => ids.next(),
      }),
    );
    assert.equal(log.state.steps.has(sid(5)), false);
    assert.match(
      formatToolHistory(log.state, [sid(5)]),
      /### Step s6: Write API endpoints\nTool calls:\n- write_file\(path="src\/api.py"\) → status: "pending" ❌/,
    );
  });
});

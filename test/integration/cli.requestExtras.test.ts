import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { main } from '../../src/cli/main';
import { tempWorkspace } from '../support/agentHarness';
import { json, message, route } from '../support/scriptedReplies';
import { useScriptedServer } from '../support/useScriptedServer';

// cortex.llm.headers / cortex.llm.query and the CLI's --header / --query (docs/design.md, “LLM requests:
// retries and failover”): every request carries them, `${env:NAME}` is taken from the environment, and no value
// reaches the terminal, the trace or an error message.

async function cli(argv: string[], env: Record<string, string> = {}) {
  const collect = () => {
    const stream = new PassThrough();
    let text = '';
    stream.on('data', (d) => (text += String(d)));
    return { stream, text: () => text };
  };
  const stdout = collect();
  const stderr = collect();
  const stdin = Object.assign(new PassThrough(), { isTTY: false });
  const code = await main(argv, { stdout: stdout.stream as never, stderr: stderr.stream as never, stdin: stdin as never, cwd: process.cwd(), env });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

const SECRET = 'azure-secret-7f3a9c';
const FLAG_SECRET = 'flag-secret-51d0e2';

describe('cortex CLI: extra request headers and query parameters', function () {
  this.timeout(30_000);
  const server = useScriptedServer();
  let workspace: string;
  let files: string;
  beforeEach(() => {
    workspace = tempWorkspace();
    files = tempWorkspace('cortex-extras-');
  });
  let made = 0;
  const settings = (values: Record<string, unknown>) => {
    const file = join(files, `settings-${made++}.json`);
    writeFileSync(file, JSON.stringify(values));
    return file;
  };
  const base = () => ['run', '--workspace', workspace, '--base-url', server().baseUrl, '--model', 'm'];

  it('every request (planned and streamed) carries the headers and query of the settings and the flags; no value is printed or traced', async () => {
    server().setHandler(
      route({
        planner: json({ title: 't', steps: ['Say hi'], dependencies: {} }),
        executor: message('hi'),
        aggregator: message('Said hi.'),
      }),
    );
    const config = settings({
      'cortex.llm.headers': { 'x-portkey-provider': 'openai', 'api-key': '${env:AZURE_KEY}', 'X-Title': 'from settings' },
      'cortex.llm.query': { 'api-version': '2024-10-21' },
    });
    const trace = join(files, 'trace.jsonl');
    const result = await cli(
      [
        ...base(),
        '--config',
        config,
        '--trace',
        trace,
        '--header',
        `x-title: Cortex test`,
        '--header',
        `X-Gateway-Key: ${FLAG_SECRET}`,
        '--query',
        'deployment=gpt',
        'say hi',
      ],
      { AZURE_KEY: SECRET },
    );
    assert.equal(result.code, 0, result.stderr);
    const requests = server().chatRequests();
    assert.deepEqual(
      requests.map((r) => r.purpose),
      ['planner', 'executor', 'aggregator'],
    );
    assert.ok(requests.some((r) => r.stream) && requests.some((r) => !r.stream), 'both request paths are covered');
    for (const request of requests) {
      assert.equal(request.headers['x-portkey-provider'], 'openai', request.purpose);
      assert.equal(request.headers['api-key'], SECRET);
      assert.equal(request.headers['x-title'], 'Cortex test', 'the flag replaces the setting of the same name in another case');
      assert.equal(request.headers['x-gateway-key'], FLAG_SECRET);
      assert.deepEqual(request.query, { 'api-version': '2024-10-21', deployment: 'gpt' });
    }
    const everything = `${result.stdout}${result.stderr}${readFileSync(trace, 'utf8')}`;
    assert.ok(!everything.includes(SECRET) && !everything.includes(FLAG_SECRET), 'a header value was printed or traced');
  });

  it('exit 2 with one line, naming the setting and never the value, for an unset variable, a bad or reserved name, a line break, or a malformed flag', async () => {
    const cases: Array<[string[], RegExp]> = [
      [
        ['--config', settings({ 'cortex.llm.headers': { 'api-key': '${env:NOT_SET_HERE}' } })],
        /cortex\.llm\.headers "api-key" uses \$\{env:NOT_SET_HERE\}, but the environment variable NOT_SET_HERE is not set/,
      ],
      [
        ['--config', settings({ 'cortex.llm.query': { 'api-version': '${env:NOT_SET_EITHER}' } })],
        /cortex\.llm\.query "api-version" uses \$\{env:NOT_SET_EITHER\}/,
      ],
      [['--header', 'bad name: x'], /"bad name" is not a valid HTTP header name/],
      [['--header', 'X-Cortex-Purpose: planner'], /"X-Cortex-Purpose" is set by Cortex itself and cannot be replaced/],
      [['--config', settings({ 'cortex.llm.headers': { 'x-a': `ok\r\nx-injected: ${SECRET}` } })], /a header value cannot contain line breaks or NUL/],
      [['--header', `Authorization Bearer ${FLAG_SECRET}`], /--header needs "NAME: VALUE"/],
      [['--query', 'api-version'], /--query needs "NAME=VALUE"/],
    ];
    for (const [flags, expected] of cases) {
      const result = await cli([...base(), ...flags, 'x']);
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, expected);
      assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
      assert.ok(!result.stderr.includes(SECRET) && !result.stderr.includes(FLAG_SECRET), result.stderr);
    }
    assert.equal(server().requests.length, 0);
  });
});

// The width benchmark's floor: the requests a Cortex run makes, in the same dependency order, by
// a plain node:http client and nothing else. It asks the planner for the plan, runs every step
// whose dependencies are done (two turns each: the model's read_file call, the file read, the
// model's answer), then asks the aggregator, prints its answer and exits. Its executor requests
// carry the system prompt and tool definitions of a Cortex run (REQUEST_SHAPE, JSON), so their
// bodies are as large as Cortex's and cost the client, the connection and the server the same.
// Usage: node floorRunner.mjs BASE_URL WORKSPACE REQUEST_SHAPE
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import { join } from 'node:path';

const [baseUrl, workspace, shapeFile] = process.argv.slice(2);
if (!shapeFile) throw new Error('usage: node floorRunner.mjs BASE_URL WORKSPACE REQUEST_SHAPE');
/** @type {{ system: string, tools: unknown[] }} */
const shape = JSON.parse(readFileSync(shapeFile, 'utf8'));
const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
const url = new URL(`${baseUrl}/chat/completions`);

function post(purpose, body) {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'x-cortex-purpose': purpose } },
      (res) => {
        res.setEncoding('utf8');
        let all = '';
        res.on('data', (part) => (all += part));
        res.on('end', () => resolve(all));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

/** The streamed turn's text and first tool call, from its SSE lines. */
async function turn(messages) {
  const body = await post('executor', { model: 'bench-model', messages, tools: shape.tools, stream: true, stream_options: { include_usage: true } });
  let content = '';
  let call;
  for (const line of body.split('\n')) {
    if (!line.startsWith('data: ') || line === 'data: [DONE]') continue;
    const delta = JSON.parse(line.slice(6)).choices[0]?.delta;
    if (!delta) continue;
    if (delta.content) content += delta.content;
    for (const fragment of delta.tool_calls ?? []) {
      if (fragment.id) call = { id: fragment.id, name: fragment.function.name, arguments: '' };
      call.arguments += fragment.function?.arguments ?? '';
    }
  }
  return { content, call };
}

async function runStep(description, inputs) {
  const messages = [
    { role: 'system', content: shape.system },
    { role: 'user', content: `Your step:\n${description}\n\nOutputs of the steps this one depends on:\n${inputs.join('\n')}` },
  ];
  const first = await turn(messages);
  const args = JSON.parse(first.call.arguments);
  const text = await readFile(join(workspace, args.path), 'utf8');
  messages.push({
    role: 'assistant',
    content: null,
    tool_calls: [{ id: first.call.id, type: 'function', function: { name: first.call.name, arguments: first.call.arguments } }],
  });
  messages.push({ role: 'tool', tool_call_id: first.call.id, content: text });
  return (await turn(messages)).content;
}

async function main() {
  const planned = JSON.parse(
    await post('planner', { model: 'bench-model', messages: [{ role: 'user', content: 'Plan the task.' }], response_format: { type: 'json_object' } }),
  );
  const plan = JSON.parse(planned.choices[0].message.content);
  const count = plan.steps.length;
  const waitingOn = plan.steps.map((_, i) => new Set(plan.dependencies[String(i)] ?? []));
  const dependents = plan.steps.map(() => []);
  waitingOn.forEach((deps, i) => deps.forEach((d) => dependents[d].push(i)));
  const outputs = [];
  await new Promise((resolve, reject) => {
    let done = 0;
    const start = (i) =>
      runStep(
        plan.steps[i],
        (plan.dependencies[String(i)] ?? []).map((d) => outputs[d]),
      ).then((output) => {
        outputs[i] = output;
        if (++done === count) return resolve();
        for (const next of dependents[i]) {
          waitingOn[next].delete(i);
          if (waitingOn[next].size === 0) start(next);
        }
      }, reject);
    waitingOn.forEach((deps, i) => deps.size === 0 && start(i));
  });
  const answer = JSON.parse(await post('aggregator', { model: 'bench-model', messages: [{ role: 'user', content: outputs.join('\n') }] }));
  process.stdout.write(`${answer.choices[0].message.content}\n`);
  agent.destroy();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

// Extra headers and query parameters on every request to the LLM endpoint (`cortex.llm.headers`,
// `cortex.llm.query`, the CLI's --header and --query): gateways route and authenticate by header
// (Portkey's x-portkey-*, OpenRouter's attribution headers, Azure's api-key) and Azure wants an
// api-version parameter. Values may name environment variables as `${env:NAME}`, resolved when
// the client is made, so a secret can stay out of the settings file. The resolved values only
// ever go into the requests: never into a log line, an error message or the trace.

import { headerValueProblem } from '../config/headerChecks';

const ENV_REFERENCE = /\$\{env:([^}]*)\}/g;

export class RequestExtrasError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RequestExtrasError';
  }
}

/** `${env:NAME}` replaced by the variable's value; a variable that is not set is an error naming the setting (never the value). */
export function expandEnvReferences(value: string, env: NodeJS.ProcessEnv, where: string): string {
  return value.replace(ENV_REFERENCE, (_whole, name: string) => {
    const found = env[name];
    if (found === undefined) throw new RequestExtrasError(`${where} uses \${env:${name}}, but the environment variable ${name} is not set`);
    return found;
  });
}

export interface RequestExtras {
  headers: Record<string, string>;
  query: Record<string, string>;
}

/** The headers and query parameters of every request, `${env:…}` resolved from `env`. */
export function requestExtrasFromSettings(
  // The settings' shape written out: the settings schema imports this file's checks.
  config: { 'cortex.llm.headers': Record<string, string>; 'cortex.llm.query': Record<string, string> },
  env: NodeJS.ProcessEnv,
): RequestExtras {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(config['cortex.llm.headers'])) {
    const resolved = expandEnvReferences(value, env, `cortex.llm.headers "${name}"`);
    if (headerValueProblem(resolved))
      throw new RequestExtrasError(`cortex.llm.headers "${name}": ${headerValueProblem(resolved)} (after \${env:…} was resolved)`);
    headers[name] = resolved;
  }
  const query: Record<string, string> = {};
  for (const [name, value] of Object.entries(config['cortex.llm.query'])) query[name] = expandEnvReferences(value, env, `cortex.llm.query "${name}"`);
  return { headers, query };
}

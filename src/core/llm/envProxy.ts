// Which forward proxy the process's requests to a URL go through, read from the environment the way
// Node reads it when it honours proxy variables (`--use-env-proxy`, which the `cortex` command
// passes, or NODE_USE_ENV_PROXY=1): HTTPS_PROXY for https URLs, HTTP_PROXY for http ones (upper or
// lower case), unless NO_PROXY names the host. Used to name the proxy in a connection error.

type Env = Readonly<Record<string, string | undefined>>;

function variable(env: Env, name: string): string | undefined {
  return env[name] || env[name.toLowerCase()] || undefined;
}

/** Whether NO_PROXY (`*`, or a comma/space list of hosts, `.suffix` domains and `host:port`) exempts `url`. */
function exempt(url: URL, noProxy: string | undefined): boolean {
  if (!noProxy) return false;
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  for (const raw of noProxy.split(/[\s,]+/)) {
    const entry = raw.trim().toLowerCase();
    if (!entry) continue;
    if (entry === '*') return true;
    const [entryHost, entryPort] = entry.startsWith('[') ? [entry.slice(1, entry.indexOf(']')), entry.split(']:')[1]] : entry.split(':');
    if (entryPort && entryPort !== port) continue;
    const bare = entryHost.replace(/^\*?\./, '');
    if (host === bare || host.endsWith(`.${bare}`)) return true;
  }
  return false;
}

/** The proxy URL requests to `target` go through, or undefined (no proxy set, NO_PROXY, not http(s)). */
export function proxyFor(target: string, env: Env): string | undefined {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return undefined;
  }
  const proxy = url.protocol === 'https:' ? variable(env, 'HTTPS_PROXY') : url.protocol === 'http:' ? variable(env, 'HTTP_PROXY') : undefined;
  if (!proxy || exempt(url, variable(env, 'NO_PROXY'))) return undefined;
  return proxy;
}

/** Whether this Node process sends its requests through the proxy variables. */
export function honoursEnvProxy(execArgv: readonly string[], env: Env): boolean {
  return execArgv.includes('--use-env-proxy') || env.NODE_USE_ENV_PROXY === '1';
}

// Types for scripts/ensureCodeServer.mjs (used by the TypeScript e2e support code).
export const CODE_SERVER_VERSION: string;
export function node24Path(): string;
export function cacheRoot(): string;
export function codeServerDir(): string;
export function codeServerEntry(dir?: string): string;
export function cleanNpmEnvironment(env: NodeJS.ProcessEnv, node: string): Record<string, string | undefined>;
export function ensureCodeServer(options?: { log?: (line: string) => void }): Promise<string>;
export function installedCodeServer(): string;

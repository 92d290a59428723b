// The shapes of MCP server definitions and of the tools they bring (docs/design.md, “MCP tools”). Nothing
// here talks to a server; the SDK is only used by the connection modules.

/** A server started as a child process, speaking MCP on its stdin/stdout. */
export interface StdioServerEntry {
  type: 'stdio';
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  /** A dotenv file whose variables are added to `env` (VS Code's mcp.json has it). */
  envFile?: string;
}

/** A server at a URL: Streamable HTTP (falling back to the older SSE transport), or SSE only. */
export interface HttpServerEntry {
  type: 'http' | 'sse';
  url: string;
  headers: Record<string, string>;
}

export type McpServerEntry = StdioServerEntry | HttpServerEntry;

/**
 * Where a definition was read from. A workspace file is a repository the user may have just
 * cloned: its servers start only after the user allowed them (the host asks).
 */
export type McpServerSource = { kind: 'user' } | { kind: 'workspace'; file: string } | { kind: 'cli'; file: string };

/** One server as a run gets it: named, with every `${…}` variable already substituted. */
export interface McpServerDefinition {
  name: string;
  entry: McpServerEntry;
  source: McpServerSource;
}

/** MCP tool annotations (hints from the server; none of them is a guarantee). */
export interface McpAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** Which server and tool a registered MCP tool stands for. */
export interface McpToolOrigin {
  server: string;
  /** The tool's own name on the server (the registry name is `<server>_<tool>`, sanitised). */
  tool: string;
  annotations?: McpAnnotations;
}

/** An `inputs` entry of VS Code's mcp.json: asked once, then kept in secret storage. */
export type McpInput =
  | { type: 'promptString'; id: string; description?: string; password?: boolean; default?: string }
  | { type: 'pickString'; id: string; description?: string; options: string[]; default?: string };

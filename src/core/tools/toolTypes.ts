import { ToolError } from '../files/toolError';
import type { FileAccessDeclaration } from '../policy/fileAccess';
import type { ToolKind } from '../policy/toolPolicy';
import type { z } from 'zod';
import type { McpToolOrigin } from '../config/mcpTypes';
import type { ValidationResult } from './argumentValidator';
import type { ImageChannel } from './toolImages';

/** What every tool run gets: the jail root, cancellation, and output/size limits. */
export interface ToolContext {
  workspaceRoot: string;
  signal: AbortSignal;
  maxReadFileBytes: number;
  timeoutMs: number;
  /** Receives the raw result of a tool whose message is a rendering of it (MCP tools), for the trace. */
  reportRaw?(raw: Record<string, unknown>): void;
  /** Whether the model takes images a tool returns (MCP tools), and where they go; absent: it does not. */
  images?: ImageChannel;
  /**
   * Set when the run records its changes (docs/design.md, “Checkpoints and revert”): a file tool calls it with the real
   * path it is about to write, after its checks and before it touches anything.
   */
  beforeWrite?(realPath: string, options?: { directory?: boolean }): Promise<void>;
}

export type { ToolKind };

/** A file tool's proposed change: see `ToolDefinition.changePreview`. */
export interface ChangePreview {
  path: string;
  after: (before: string | null) => string | undefined;
}

/**
 * A tool defined once: its zod schema is both the validator and (via z.toJSONSchema) the JSON
 * Schema sent to the model. `readOnly` tools may run concurrently; others stay ordered.
 */
export interface ToolDefinition<S extends z.ZodType = z.ZodType> extends FileAccessDeclaration<z.infer<S>> {
  name: string;
  description: string;
  schema: S;
  kind: ToolKind;
  readOnly: boolean;
  /** A JSON Schema given as is (MCP tools): sent to the model instead of the zod schema's. */
  parameters?: Record<string, unknown>;
  /** Checks arguments instead of `schema` (MCP tools validate against their JSON Schema). */
  validate?(value: unknown): ValidationResult;
  /**
   * The one file the call would change and its text afterwards, for the diff a person sees before
   * approving it (docs/design.md, “Checkpoints and revert”). `after` gets the file's current text
   * (null when it does not exist) and may return undefined when no preview can be made.
   */
  changePreview?(args: z.infer<S>): ChangePreview;
  /** Set for the tools of an MCP server (docs/design.md, “MCP tools”). */
  mcp?: McpToolOrigin;
  run(args: z.infer<S>, context: ToolContext): Promise<string>;
}

// ToolError lives in the file kernel, which throws it and sits below the tools (docs/design.md, “The core's inner layers”).
export { ToolError };

/**
 * A command that ran to its end and exited non-zero (or was stopped by a signal). Its exit code and
 * output are evidence, not a failure to run (docs/design.md, “The verifier and how a step ends”).
 */
export class CommandExitError extends ToolError {
  constructor(
    message: string,
    readonly exitCode: number | null,
  ) {
    super(message);
    this.name = 'CommandExitError';
  }
}

import { ToolError } from '../files/toolError';
import type { FileAccessDeclaration } from '../policy/fileAccess';
import type { ToolKind } from '../policy/toolPolicy';
import type { z } from 'zod';
import type { ToolOrigin } from '../policy/toolOrigin';
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

export type { ToolKind, ToolOrigin };

/**
 * What a call may change, which is how the checkpoints record it (docs/design.md, “Checkpoints and
 * revert”): `none`, it only reads; `files`, the workspace files it announces through `beforeWrite`
 * before writing each; `workspace`, anything in the workspace (a command), found by scanning the
 * workspace around the call; `unrecorded`, things the checkpoints do not record (what an MCP
 * server does, the workspace's memory): the call runs as it is.
 */
export type ToolChanges = 'none' | 'files' | 'workspace' | 'unrecorded';

/** A file tool's proposed change: see `ToolDefinition.changePreview`. */
export interface ChangePreview {
  path: string;
  after: (before: string | null) => string | undefined;
}

/**
 * A tool defined once: its zod schema is both the validator and (via z.toJSONSchema) the JSON
 * Schema sent to the model. A tool says what it is and what it does (docs/design.md, “The core's
 * inner layers”, on tool capabilities), and the runner asks these, never the tool's name or origin:
 * `readOnly` tools may run concurrently (others stay ordered), `idempotent` ones are not repeated
 * within a batch, `changes` says how the checkpoints record a call.
 */
export interface ToolDefinition<S extends z.ZodType = z.ZodType> extends FileAccessDeclaration<z.infer<S>> {
  name: string;
  description: string;
  schema: S;
  kind: ToolKind;
  readOnly: boolean;
  /** Where the tool comes from; the rules about MCP servers (policy keys, audit) read it. */
  origin: ToolOrigin;
  /**
   * A second call with the same arguments gives nothing the first did not: a repeat within one
   * batch reuses the first call's result (docs/design.md, “Running a batch of calls”). True for
   * the tools that only read.
   */
  idempotent: boolean;
  /** What a call may change, and so how the checkpoints record it. */
  changes: ToolChanges;
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

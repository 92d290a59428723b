import type { z } from 'zod';

/** What every tool run gets: the jail root, cancellation, and output/size limits. */
export interface ToolContext {
  workspaceRoot: string;
  signal: AbortSignal;
  maxReadFileBytes: number;
  timeoutMs: number;
}

export type ToolKind = 'read' | 'write' | 'command' | 'other';

/**
 * A tool defined once: its zod schema is both the validator and (via z.toJSONSchema) the JSON
 * Schema sent to the model. `readOnly` tools may run concurrently; others stay ordered.
 */
export interface ToolDefinition<S extends z.ZodType = z.ZodType> {
  name: string;
  description: string;
  schema: S;
  kind: ToolKind;
  readOnly: boolean;
  run(args: z.infer<S>, context: ToolContext): Promise<string>;
}

/** A tool failure meant for the model (clear message, no stack). */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolError';
  }
}

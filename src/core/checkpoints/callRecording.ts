import type { ToolContext, ToolDefinition } from '../tools/toolTypes';
import type { CheckpointRecorder } from './checkpointRecorder';

// The one place a tool call meets the checkpoints, asking what the tool declares it changes
// (`ToolDefinition.changes`): a tool that changes `files` gets the `beforeWrite` hook in its
// context (it says exactly what it is about to change), one that may change the `workspace`
// (run_command) is watched by scanning the workspace around it, and every other tool (one that
// changes nothing, or nothing the checkpoints record: MCP tools, memory) runs as it is.

export interface RecordedCall {
  stepId: string;
  callId: string;
  tool: ToolDefinition | undefined;
}

/** Runs `run` with the context it should get, recording what the call changed when there is a recorder. */
export function recordToolCall<T>(
  recorder: CheckpointRecorder | undefined,
  call: RecordedCall,
  context: ToolContext,
  run: (context: ToolContext) => Promise<T>,
): Promise<T> {
  const tool = call.tool;
  if (!recorder || !tool) return run(context);
  if (tool.changes === 'workspace') return recorder.recordCommand(call.stepId, call.callId, () => run(context));
  if (tool.changes === 'files') return recorder.recordFileTool(call.stepId, call.callId, (beforeWrite) => run({ ...context, beforeWrite }));
  return run(context);
}

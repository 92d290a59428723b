import { compileProtectedPaths } from '../files/protectedPaths';
import { nearestFiles, stepFolders } from '../instructions/nearestInstructions';
import { loadProjectInstructions, type InstructionsFile } from '../instructions/projectInstructions';
import type { RunContext } from './runContext';

// The nearest AGENTS.md above a step's paths, for that step's executor (docs/design.md, “Project
// instructions”). Only when AGENTS.md is among cortex.instructions.files, only in a trusted
// workspace, read with the same checks as the root files; the run's log names what a step used.

const NESTED_NAME = 'AGENTS.md';

export async function stepInstructions(context: RunContext, stepId: string): Promise<InstructionsFile[]> {
  if (!context.trusted || !context.config['cortex.instructions.files'].includes(NESTED_NAME)) return [];
  const step = context.log.state.steps.get(stepId);
  if (!step) return [];
  const paths = await nearestFiles(context.workspaceRoot, stepFolders(step), NESTED_NAME);
  if (paths.length === 0) return [];
  const found = await loadProjectInstructions(context.workspaceRoot, paths, compileProtectedPaths(context.config['cortex.policy.protectedPaths']));
  for (const warning of found.warnings) context.log.append({ type: 'log', level: 'warn', message: warning, stepId });
  if (found.files.length > 0)
    context.log.append({
      type: 'log',
      level: 'info',
      message: `Step ${stepId} also follows ${found.files.map((file) => file.path).join(', ')}`,
      stepId,
      data: { kind: 'project_instructions', stepId, files: found.files.map((file) => ({ path: file.path, bytes: file.bytes })) },
    });
  return found.files;
}

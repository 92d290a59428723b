import { loadProjectInstructions } from '../instructions/projectInstructions';
import { compileProtectedPaths } from '../files/protectedPaths';
import type { RunContext } from './runContext';

// Once per run (and per resume), before the planner: the project's instructions files are read
// and the run says which it used (docs/design.md, “Project instructions”). Never in an untrusted
// workspace (Restricted Mode): the files are not even opened.

export async function readRunInstructions(context: RunContext): Promise<void> {
  const paths = context.config['cortex.instructions.files'];
  if (paths.length === 0) return;
  if (!context.trusted) {
    context.log.append({ type: 'log', level: 'info', message: 'Project instructions not read: the workspace is not trusted (Restricted Mode).' });
    return;
  }
  const found = await loadProjectInstructions(context.workspaceRoot, paths, compileProtectedPaths(context.config['cortex.policy.protectedPaths']));
  for (const warning of found.warnings) context.log.append({ type: 'log', level: 'warn', message: warning });
  context.instructions = found.files;
  if (found.files.length === 0) return;
  context.log.append({
    type: 'log',
    level: 'info',
    message: `Project instructions from ${found.files.map((file) => file.path).join(', ')}`,
    data: { kind: 'project_instructions', files: found.files.map((file) => ({ path: file.path, bytes: file.bytes })) },
  });
}

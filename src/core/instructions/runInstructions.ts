import type { FlatConfig } from '../config/configSchema';
import { compileProtectedPaths } from '../files/protectedPaths';
import type { ChatMessage } from '../llm/llmTypes';
import type { EventLog } from '../plan/eventLog';
import { withProjectInstructions } from './instructionsMessage';
import { nearestFiles, stepFolders } from './nearestInstructions';
import { loadProjectInstructions, type InstructionsFile } from './projectInstructions';

// The instructions feature's part of one run (docs/design.md, “Project instructions”): it reads the
// project's instructions files once per run (and per resume), before the planner, says which it
// used, and puts them at the head of every request of the run; a step's executor also gets the
// nearest AGENTS.md above the step's paths. Never in an untrusted workspace (Restricted Mode): the
// files are not even opened. The agent calls it; it never calls the agent.

/** What the run tells its instructions: where to read, what is allowed, where to say what was read. */
export interface RunInstructionsOptions {
  workspaceRoot: string;
  config: Pick<FlatConfig, 'cortex.instructions.files' | 'cortex.policy.protectedPaths'>;
  trusted: boolean;
  log: EventLog;
}

/** Only this name is looked for above a step's paths, and only when it is among cortex.instructions.files. */
const NESTED_NAME = 'AGENTS.md';

export class RunInstructions {
  /** The root files read at the start; none until `read`, and none in an untrusted workspace. */
  private files: readonly InstructionsFile[] = [];

  constructor(private readonly options: RunInstructionsOptions) {}

  /** Reads the root files of cortex.instructions.files and says which were used (or why none were). */
  async read(): Promise<void> {
    const { config, log, workspaceRoot } = this.options;
    const paths = config['cortex.instructions.files'];
    if (paths.length === 0) return;
    if (!this.options.trusted) {
      log.append({ type: 'log', level: 'info', message: 'Project instructions not read: the workspace is not trusted (Restricted Mode).' });
      return;
    }
    const found = await loadProjectInstructions(workspaceRoot, paths, compileProtectedPaths(config['cortex.policy.protectedPaths']));
    for (const warning of found.warnings) log.append({ type: 'log', level: 'warn', message: warning });
    this.files = found.files;
    if (found.files.length === 0) return;
    log.append({
      type: 'log',
      level: 'info',
      message: `Project instructions from ${found.files.map((file) => file.path).join(', ')}`,
      data: { kind: 'project_instructions', files: found.files.map((file) => ({ path: file.path, bytes: file.bytes })) },
    });
  }

  /** Puts the run's instructions right after the leading system messages (planner, replanner). */
  addTo(messages: ChatMessage[]): ChatMessage[] {
    return withProjectInstructions(messages, this.files);
  }

  /**
   * For a step's executor: the run's instructions right after the system prompt (the same bytes in
   * every request), then the nearest AGENTS.md above the step's own paths in a message of their own.
   */
  async addToStep(messages: ChatMessage[], stepId: string): Promise<ChatMessage[]> {
    return withProjectInstructions(withProjectInstructions(messages, await this.nearestFor(stepId)), this.files);
  }

  /** The nearest AGENTS.md above the step's paths, read with the same checks as the root files; the log names what the step used. */
  private async nearestFor(stepId: string): Promise<InstructionsFile[]> {
    const { config, log, workspaceRoot } = this.options;
    if (!this.options.trusted || !config['cortex.instructions.files'].includes(NESTED_NAME)) return [];
    const step = log.state.steps.get(stepId);
    if (!step) return [];
    const paths = await nearestFiles(workspaceRoot, stepFolders(step), NESTED_NAME);
    if (paths.length === 0) return [];
    const found = await loadProjectInstructions(workspaceRoot, paths, compileProtectedPaths(config['cortex.policy.protectedPaths']));
    for (const warning of found.warnings) log.append({ type: 'log', level: 'warn', message: warning, stepId });
    if (found.files.length > 0)
      log.append({
        type: 'log',
        level: 'info',
        message: `Step ${stepId} also follows ${found.files.map((file) => file.path).join(', ')}`,
        stepId,
        data: { kind: 'project_instructions', stepId, files: found.files.map((file) => ({ path: file.path, bytes: file.bytes })) },
      });
    return found.files;
  }
}

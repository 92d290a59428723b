import type { FlatConfig } from '../config/configSchema';
import type { EventLog } from '../plan/eventLog';
import type { ToolContext } from '../tools/toolTypes';
import { recordToolCall, type RecordedCall } from './callRecording';
import { CheckpointRecorder } from './checkpointRecorder';
import { revertForReplan } from './replanRevert';

// The checkpoints feature's part of one run (docs/design.md, “Checkpoints and revert”): it owns the
// run's change recorder, records what each tool call changes, puts back what replaced or discarded
// steps changed, and closes the recorder before the run's last line. A run records nothing without
// a checkpoint folder, with cortex.checkpoints.enabled off, or in an untrusted workspace (its run
// cannot write, and git is not run in it); every call then runs as it is.

export interface RunCheckpointsOptions {
  /** The run's checkpoint folder, outside the workspace; undefined: nothing is recorded. */
  dir: string | undefined;
  /** Files the host writes during the run (its trace and lock), never taken for the run's changes. */
  exclude: readonly string[] | undefined;
  workspaceRoot: string;
  config: Pick<FlatConfig, 'cortex.checkpoints.enabled' | 'cortex.checkpoints.maxFileBytes' | 'cortex.policy.protectedPaths'>;
  trusted: boolean;
  log: EventLog;
}

export class RunCheckpoints {
  private readonly recorder: CheckpointRecorder | undefined;

  constructor(private readonly options: RunCheckpointsOptions) {
    const { dir, config, log } = options;
    this.recorder =
      dir && config['cortex.checkpoints.enabled'] && options.trusted
        ? new CheckpointRecorder({
            dir,
            workspaceRoot: options.workspaceRoot,
            maxFileBytes: config['cortex.checkpoints.maxFileBytes'],
            recordChanges: (stepId, callId, changes) => log.append({ type: 'files_changed', stepId, callId, changes }),
            warn: (message) => log.append({ type: 'log', level: 'warn', message: `Checkpoints: ${message}` }),
            exclude: options.exclude,
          })
        : undefined;
  }

  /** Whether this run records its file changes (what commands change is known only then). */
  get recording(): boolean {
    return this.recorder !== undefined;
  }

  /** Sets up the checkpoint folder in the background (the planner's request goes on meanwhile). */
  prepare(): void {
    void this.recorder?.prepare().catch(() => undefined);
  }

  /** A command may run: the shadow repository is set up in the background, while its approval is awaited. */
  prepareCommands(): void {
    void this.recorder?.prepareCommands();
  }

  /** Runs one tool call with the context it should get, recording what it changed with the step and call that made it. */
  record<T>(call: RecordedCall, context: ToolContext, run: (context: ToolContext) => Promise<T>): Promise<T> {
    return recordToolCall(this.recorder, call, context, run);
  }

  /**
   * Puts back what `stepIds` changed and records `files_reverted` (a replan by default, or a
   * discarded streamed plan); never throws. Nothing happens when the run records nothing.
   */
  async revertSteps(stepIds: readonly string[], reason?: 'replan' | 'plan_discarded'): Promise<void> {
    if (!this.recorder) return;
    const { config } = this.options;
    await revertForReplan({
      log: this.options.log,
      recorder: this.recorder,
      workspaceRoot: this.options.workspaceRoot,
      maxFileBytes: config['cortex.checkpoints.maxFileBytes'],
      protectedPaths: config['cortex.policy.protectedPaths'],
      stepIds,
      ...(reason ? { reason } : {}),
    });
  }

  /** Waits for the recordings in flight: every change is recorded before the run's last line. */
  close(): Promise<void> {
    return this.recorder?.close() ?? Promise.resolve();
  }
}

import { RunCheckpoints } from '../checkpoints/runCheckpoints';
import type { FlatConfig } from '../config/configSchema';
import { RunContextBudget } from '../context/runContextBudget';
import { RunInstructions } from '../instructions/runInstructions';
import { RunMemory } from '../memory/runMemory';
import type { EventLog } from '../plan/eventLog';

// The features a run uses, each as its own run object (docs/design.md, “The core's inner layers”):
// a feature keeps its run state (the budget, the instructions read, the memory file, the change
// recorder) and the agent calls it at the points it needs it; a feature never calls the agent.
// Built once per run by AgentRun; a step's copy of the run context shares them.

export interface RunFeatures {
  /** Fits every LLM request into the model's context budget (docs/design.md, “Context budget and memory”). */
  readonly contextBudget: RunContextBudget;
  /** The project's instructions, at the head of the requests (docs/design.md, “Project instructions”). */
  readonly instructions: RunInstructions;
  /** The workspace memory: its tools and the memories a step gets (docs/design.md, “Context budget and memory”). */
  readonly memory: RunMemory;
  /** Records, reverts and closes the run's file changes (docs/design.md, “Checkpoints and revert”). */
  readonly checkpoints: RunCheckpoints;
}

/** What the features are built from: the run's settings, workspace and log, and the host's files for the run. */
export interface RunFeatureOptions {
  workspaceRoot: string;
  config: FlatConfig;
  trusted: boolean;
  log: EventLog;
  memoryFile?: string;
  checkpointsDir?: string;
  checkpointsExclude?: readonly string[];
}

export function createRunFeatures(options: RunFeatureOptions): RunFeatures {
  const { workspaceRoot, config, trusted, log } = options;
  return {
    contextBudget: new RunContextBudget(config, log),
    instructions: new RunInstructions({ workspaceRoot, config, trusted, log }),
    memory: new RunMemory({ file: options.memoryFile, config, log }),
    checkpoints: new RunCheckpoints({ dir: options.checkpointsDir, exclude: options.checkpointsExclude, workspaceRoot, config, trusted, log }),
  };
}

import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { ChangeLedger } from './changeLedger';
import type { FileChange } from '../plan/changeSchema';
import { CommandRecording, NO_GIT_NOTE } from './commandRecording';
import { ContentStore, DEFAULT_MAX_OBJECT_BYTES } from './contentStore';
import { FileToolRecording, type BeforeWriteOptions, type CollectedAfter } from './fileToolRecording';
import { ShadowGit } from './shadowGit';
import { displayPath, isInside, realLocation } from '../files/workspaceJail';
import { scanWorkspace } from './workspaceScan';

// Records every file change of a run (docs/design.md, “Checkpoints and revert”): one recorder per run, with the run's
// content store (outside the workspace), the attribution ledger and, when git is installed, the
// shadow repository for the old contents of what commands change. Recording never fails a tool
// call: a problem is a warning in the trace and the call's result stays as it was.

export interface CheckpointRecorderOptions {
  /** The run's checkpoint folder (content store and shadow repository), outside the workspace. */
  dir: string;
  workspaceRoot: string;
  /** cortex.checkpoints.maxFileBytes: larger files are recorded but not saved. */
  maxFileBytes: number;
  /** Appends the run's `files_changed` events. */
  recordChanges(stepId: string, callId: string, changes: FileChange[]): void;
  warn(message: string): void;
  /** False: never use git (commands' old contents are then not saved). */
  useGit?: boolean;
  /** Files and folders the host writes during the run (its trace): never taken for the run's changes. */
  exclude?: readonly string[];
}

interface Ready {
  realRoot: string;
  /** `exclude` and the checkpoint folder, relative to the workspace, when inside it. */
  excluded: ReadonlySet<string>;
}

/** What commands are recorded with: the shadow repository, or why there is none. */
interface CommandSetup {
  shadow?: ShadowGit;
  noShadowReason?: string;
}

/** The paths among `paths` that are inside the workspace, relative to it. */
async function insideWorkspace(realRoot: string, paths: readonly string[]): Promise<Set<string>> {
  const inside = new Set<string>();
  for (const item of paths) {
    const real = await realLocation(path.resolve(item)).catch(() => path.resolve(item));
    if (isInside(realRoot, real) && real !== realRoot) inside.add(displayPath(realRoot, real));
  }
  return inside;
}

export type BeforeWriteHook = (realPath: string, options?: BeforeWriteOptions) => Promise<void>;

export class CheckpointRecorder {
  readonly store: ContentStore;
  private readonly ledger = new ChangeLedger();
  private ready: Promise<Ready> | undefined;
  private commandSetup: Promise<CommandSetup> | undefined;
  private readonly inFlight = new Set<Promise<unknown>>();
  /** File tools' calls not yet queued for recording: each settles once its change is in the queue. */
  private readonly fileToolsUnqueued = new Set<Promise<void>>();
  /** Recordings are described one after the other, so files_changed events keep the calls' order. */
  private queue: Promise<void> = Promise.resolve();
  private closed = false;
  private setupFailed = false;

  constructor(private readonly options: CheckpointRecorderOptions) {
    this.store = new ContentStore(options.dir, Math.max(DEFAULT_MAX_OBJECT_BYTES, options.maxFileBytes));
  }

  get dir(): string {
    return this.options.dir;
  }

  /** The run's own files (checkpoint folder, trace, lock), as given: a restore never writes them. */
  get runFiles(): string[] {
    return [this.options.dir, ...(this.options.exclude ?? [])];
  }

  /** Creates the content store and finds the workspace's real location (no git: see prepareCommands). */
  prepare(): Promise<Ready> {
    this.ready ??= (async () => {
      await this.store.ensureDir();
      const realRoot = await realpath(this.options.workspaceRoot);
      const excluded = await insideWorkspace(realRoot, [this.options.dir, ...(this.options.exclude ?? [])]);
      return { realRoot, excluded };
    })();
    return this.ready;
  }

  /**
   * Creates the shadow repository and takes a first snapshot in the background, so that the first
   * command does not pay for hashing the whole workspace. Called when a model first asks for a
   * command, while its approval is awaited; a run that never runs one starts no git at all.
   * Never rejects: without git, commands are recorded without their old contents.
   */
  prepareCommands(): Promise<CommandSetup> {
    this.commandSetup ??= (async (): Promise<CommandSetup> => {
      const ready = await this.readyOrNothing();
      if (!ready) return { noShadowReason: NO_GIT_NOTE };
      if (this.options.useGit === false) return { noShadowReason: NO_GIT_NOTE };
      try {
        const shadow = await ShadowGit.create(path.join(this.options.dir, 'shadow.git'), ready.realRoot);
        if (!shadow) {
          this.options.warn(`git is not installed: changes made by run_command are recorded, but what they modified or deleted cannot be reverted`);
          return { noShadowReason: NO_GIT_NOTE };
        }
        const warmUp = await scanWorkspace(ready.realRoot, undefined, ready.excluded);
        if (!warmUp.truncated) {
          const small = new Map([...warmUp.files].filter(([, stamp]) => stamp.size <= this.options.maxFileBytes));
          void this.track(shadow.snapshot(small).catch((error: unknown) => this.options.warn(`checkpoint snapshot failed: ${(error as Error).message}`)));
        }
        return { shadow };
      } catch (error) {
        const reason = `the checkpoint repository could not be created (${(error as Error).message})`;
        this.options.warn(`${reason}: changes made by run_command are recorded, but what they modified or deleted cannot be reverted`);
        return { noShadowReason: reason };
      }
    })();
    return this.commandSetup;
  }

  /** Runs `work` after every recording queued before it. */
  private enqueue(work: () => Promise<void>): Promise<void> {
    const next = this.queue.then(work);
    this.queue = next.catch(() => undefined);
    return this.track(next);
  }

  /** Resolves once every change recorded so far is in the log (a revert reads the plan after it). */
  settle(): Promise<void> {
    return this.queue;
  }

  private track<T>(work: Promise<T>): Promise<T> {
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work)).catch(() => undefined);
    return work;
  }

  /** The prepared state, or undefined (with one warning) when the checkpoint folder cannot be set up. */
  private async readyOrNothing(): Promise<Ready | undefined> {
    if (this.closed) return undefined;
    try {
      return await this.prepare();
    } catch (error) {
      if (!this.setupFailed)
        this.options.warn(`file changes are not recorded: the checkpoint folder ${this.options.dir} could not be set up (${(error as Error).message})`);
      this.setupFailed = true;
      return undefined;
    }
  }

  /** Runs a file tool's call with the `beforeWrite` hook, then records what it changed. */
  async recordFileTool<T>(stepId: string, callId: string, run: (beforeWrite: BeforeWriteHook) => Promise<T>): Promise<T> {
    const ready = await this.readyOrNothing();
    if (!ready) return run(() => Promise.resolve());
    const { realRoot } = ready;
    const recording = new FileToolRecording(realRoot, this.store, this.options.maxFileBytes, this.ledger, ready.excluded);
    let queued!: () => void;
    const unqueued = new Promise<void>((resolve) => (queued = resolve));
    this.fileToolsUnqueued.add(unqueued);
    try {
      return await run(recording.beforeWrite);
    } finally {
      // What is there now is read at once; hashing, storing and the event follow without holding
      // up the call (they are awaited before any revert and before the run ends).
      let collected: CollectedAfter[] | undefined;
      try {
        collected = await recording.collect();
      } catch (error) {
        this.options.warn(`could not record the changes of ${callId}: ${(error as Error).message}`);
      }
      if (collected) void this.enqueue(() => this.emit(stepId, callId, () => recording.changes(callId, collected)));
      this.fileToolsUnqueued.delete(unqueued);
      queued();
    }
  }

  /** Runs a command's call between two scans of the workspace, then records what it changed. */
  async recordCommand<T>(stepId: string, callId: string, run: () => Promise<T>): Promise<T> {
    const ready = await this.readyOrNothing();
    if (!ready) return run();
    const { shadow, noShadowReason } = await this.prepareCommands();
    let recording: CommandRecording | undefined;
    try {
      recording = await CommandRecording.start(
        {
          realRoot: ready.realRoot,
          store: this.store,
          maxBytes: this.options.maxFileBytes,
          ledger: this.ledger,
          shadow,
          noShadowReason,
          exclude: ready.excluded,
        },
        callId,
      );
      if (recording.untracked) this.options.warn(`the workspace has too many files to track what ${callId} changes`);
    } catch (error) {
      this.options.warn(`could not record what ${callId} changes: ${(error as Error).message}`);
    }
    try {
      return await run();
    } finally {
      if (recording) {
        await recording.scanAfter();
        // A file tool of a parallel step that wrote while the command ran is told apart through the
        // ledger: its change must be queued before the command's is described, or the command
        // would be taken for its author.
        await Promise.all([...this.fileToolsUnqueued]);
        await this.enqueue(() => this.emit(stepId, callId, () => recording.changes()));
      }
    }
  }

  private async emit(stepId: string, callId: string, collect: () => Promise<FileChange[]>): Promise<void> {
    try {
      const changes = await collect();
      if (changes.length > 0) this.options.recordChanges(stepId, callId, changes);
    } catch (error) {
      this.options.warn(`could not record the changes of ${callId}: ${(error as Error).message}`);
    }
  }

  /** What a revert wrote is nobody's change: a command watching the workspace meanwhile leaves it out. */
  noteReverted(files: ReadonlyArray<{ path: string; from: string | null; to: string | null; folder?: string }>): void {
    for (const file of files)
      if (file.folder !== 'unchanged' && (file.folder !== undefined || file.from !== file.to))
        this.ledger.note(file.path, 'revert', file.folder ? null : file.to);
  }

  /** Waits for recordings in flight and removes the shadow repository (the content store stays). */
  async close(): Promise<void> {
    this.closed = true;
    const setup = await this.commandSetup;
    await Promise.allSettled([...this.inFlight]);
    await setup?.shadow?.dispose().catch(() => undefined);
  }
}

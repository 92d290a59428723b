import path from 'node:path';
import type { ChangeLedger } from './changeLedger';
import { describeChange } from './changeDescription';
import type { FileChange } from '../plan/changeSchema';
import type { ContentStore } from './contentStore';
import { captureFile, tooLargeNote, type CapturedFile } from './fileCapture';
import type { ShadowGit } from './shadowGit';
import { compareScans, scanWorkspace, type FileStamp, type WorkspaceScan } from './workspaceScan';

// What one run_command call changed: the workspace is scanned before and after the command, and
// the paths whose stamp differs are hashed. The old contents come from the shadow git snapshot
// taken right before the command (when git is installed); without it a command's modifications
// and deletions are recorded as not restorable. Changes that another call of the run recorded
// while the command ran (a file tool of a parallel step, another command) are that call's: they
// are left out, and where the command changed such a file again, its change starts from there.

export interface CommandRecordingDeps {
  realRoot: string;
  store: ContentStore;
  maxBytes: number;
  ledger: ChangeLedger;
  shadow?: ShadowGit;
  /** Why there is no shadow repository (git missing, or it failed), for the notes. */
  noShadowReason?: string;
  /** Relative paths the scans skip (the run's own trace and checkpoint folder). */
  exclude?: ReadonlySet<string>;
}

export const NO_GIT_NOTE = 'git is not installed, so the content before the command was not saved';

export class CommandRecording {
  private constructor(
    private readonly deps: CommandRecordingDeps,
    private readonly callId: string,
    private readonly mark: number,
    private readonly before: WorkspaceScan,
    private readonly tree: string | undefined,
    private readonly snapshotProblem: string | undefined,
  ) {}

  /** Scans the workspace and snapshots its files; call right before the command runs. */
  static async start(deps: CommandRecordingDeps, callId: string): Promise<CommandRecording> {
    const mark = deps.ledger.mark();
    const before = await scanWorkspace(deps.realRoot, undefined, deps.exclude);
    let tree: string | undefined;
    let problem = deps.shadow ? undefined : (deps.noShadowReason ?? NO_GIT_NOTE);
    if (deps.shadow && !before.truncated) {
      const small = new Map<string, FileStamp>();
      for (const [file, stamp] of before.files) if (stamp.size <= deps.maxBytes) small.set(file, stamp);
      try {
        tree = await deps.shadow.snapshot(small);
      } catch (error) {
        problem = `the snapshot before the command failed (${(error as Error).message})`;
      }
    }
    return new CommandRecording(deps, callId, mark, before, tree, problem);
  }

  /** True when the workspace was too large to scan: nothing is recorded for this command. */
  get untracked(): boolean {
    return this.before.truncated;
  }

  private after: WorkspaceScan | undefined;

  /** Scans again; call right after the command ended. */
  async scanAfter(): Promise<void> {
    if (!this.before.truncated) this.after = await scanWorkspace(this.deps.realRoot, undefined, this.deps.exclude);
  }

  /**
   * What the command changed (also noted in the ledger), from the scans; call once the calls
   * recorded before it are in the ledger, so their changes are told apart.
   */
  async changes(): Promise<FileChange[]> {
    const after = this.after;
    if (this.before.truncated || !after || after.truncated) return [];
    const { realRoot, store, maxBytes, ledger, shadow } = this.deps;
    const difference = compareScans(this.before, after);
    const previous = [...difference.touched, ...difference.deleted];
    const oldContents =
      shadow && this.tree
        ? await shadow.readFiles(
            this.tree,
            previous.filter((file) => this.before.files.get(file)!.size <= maxBytes),
          )
        : new Map<string, Buffer>();
    const changes: FileChange[] = [];
    for (const file of [...difference.created, ...previous].sort()) {
      const now = await captureFile(path.join(realRoot, file), file, store, maxBytes, ledger);
      const other = ledger.recordedSince(file, this.mark, this.callId);
      if (other && other.after === now.hash) continue; // another call's change
      const before = other ? await this.afterOther(other.after) : await this.previousState(file, oldContents.get(file));
      const change = describeChange(file, before, now);
      if (!change) continue;
      changes.push(change);
      ledger.note(file, this.callId, now.hash, now.stamp);
    }
    for (const folder of difference.createdFolders.sort()) {
      if (ledger.recordedSince(folder, this.mark, this.callId)) continue;
      changes.push({ path: folder, kind: 'created', before: null, after: null, restorable: true, directory: true });
      ledger.note(folder, this.callId, null);
    }
    for (const folder of difference.deletedFolders.sort()) {
      changes.push({ path: folder, kind: 'deleted', before: null, after: null, restorable: true, directory: true });
      ledger.note(folder, this.callId, null);
    }
    return changes;
  }

  /** The state another call left a file in (its content is in the store). */
  private async afterOther(hash: string | null): Promise<CapturedFile> {
    if (hash === null) return { exists: false, hash: null, restorable: true };
    return { exists: true, hash, bytes: await this.deps.store.get(hash), restorable: true };
  }

  /** A file's state before the command, from the snapshot when there is one. */
  private async previousState(file: string, old: Buffer | undefined): Promise<CapturedFile> {
    const stamp = this.before.files.get(file);
    if (!stamp) return { exists: false, hash: null, restorable: true };
    if (old) return { exists: true, hash: await this.deps.store.put(old), bytes: old, restorable: true };
    if (stamp.size > this.deps.maxBytes) return { exists: true, hash: null, restorable: false, note: tooLargeNote(stamp.size, this.deps.maxBytes) };
    return { exists: true, hash: null, restorable: false, note: this.snapshotProblem ?? 'the content before the command was not saved' };
  }
}

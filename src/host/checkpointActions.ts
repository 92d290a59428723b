import { appendRegular } from '../core/files/regularRead';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { RevertConflict, RevertedFile } from '../core/plan/changeSchema';
import { summarizeChanges, type FileSummary } from '../core/checkpoints/changeSummary';
import { ContentStore } from '../core/checkpoints/contentStore';
import { appendToTrace, defaultCheckpointsDir, revertRecorded, undoLastRevert, type RevertResult, type RunReview } from '../core/checkpoints/runReview';
import { sameFolder } from '../core/files/recordedWorkspace';
import type { NewRunEvent } from '../core/plan/events';
import type { ProtectedPathRules } from '../core/files/protectedPaths';
import { foldEvents } from '../core/plan/reducer';
import type { Logger } from '../core/ports';
import type { PanelChangeActions } from '../panel/dagPanel';
import type { RunSource } from '../panel/runSource';
import { checkpointUri, type CheckpointSide } from './checkpointContent';
import type { PanelManager } from './panelManager';
import type { RunRegistry } from './runRegistry';

// What the panel's "Review changes", "Revert step" and "Revert run" and a click on a changed file
// do (docs/design.md, “Checkpoints and revert”): VS Code's diff editor and multi-file diff over the saved contents, and
// reverts that say what they will restore and ask first (modal), then are recorded in the run's
// trace. The editor never takes the focus from where the person is (preserveFocus). A revert acts
// on a folder open in this window, never on the one a trace names, and names each protected path
// it would write, which it writes only when the person confirms them.

async function reviewOf(source: RunSource): Promise<RunReview> {
  if (!source.traceFile) throw new Error('this run has no trace file, so it has no recorded changes');
  const events = [...source.events()];
  const started = events.find((event) => event.type === 'run_started');
  if (started?.type !== 'run_started') throw new Error('the run has not started');
  const open = (vscode.workspace.workspaceFolders ?? []).map((folder) => folder.uri.fsPath);
  const same = await Promise.all(open.map((folder) => sameFolder(folder, started.workspace)));
  const workspace = open.find((_, index) => same[index]);
  if (!workspace)
    throw new Error(
      `the trace was recorded for the workspace ${started.workspace}, which is not open in this window (open: ${open.join(', ') || 'no folder'}); open that folder to review or revert its changes`,
    );
  return {
    traceFile: source.traceFile,
    events,
    state: foldEvents(events),
    workspace,
    store: new ContentStore(defaultCheckpointsDir(source.traceFile)),
    warnings: [],
  };
}

function sides(summary: FileSummary): { before: CheckpointSide; after: CheckpointSide } {
  const why = summary.notes[0] ?? 'it was not saved';
  return {
    before:
      summary.kind === 'created'
        ? { kind: 'absent' }
        : summary.beforeKnown && summary.before
          ? { kind: 'content', hash: summary.before }
          : { kind: 'unsaved', why },
    after:
      summary.kind === 'deleted'
        ? { kind: 'absent' }
        : summary.afterKnown && summary.after
          ? { kind: 'content', hash: summary.after }
          : { kind: 'unsaved', why },
  };
}

function scopeText(stepIds: readonly string[] | undefined, all: readonly string[]): string {
  if (!stepIds) return 'the run';
  const after = all.filter((id) => !stepIds.includes(id));
  return `step ${stepIds.join(', ')}${after.length ? ` and the step${after.length > 1 ? 's' : ''} after it (${after.join(', ')})` : ''}`;
}

function fileLine(file: RevertedFile): string | undefined {
  if (file.folder === 'created') return `create folder ${file.path}/`;
  if (file.folder === 'removed') return `remove folder ${file.path}/`;
  if (file.folder === 'unchanged' || file.from === file.to) return undefined;
  if (file.to === null) return `remove ${file.path}`;
  return `restore ${file.path}`;
}

const conflictLine = (conflict: RevertConflict) => `leave alone ${conflict.path}: ${conflict.detail}`;

const forceable = (conflicts: readonly RevertConflict[]) => conflicts.filter((c) => c.reason === 'changed_since' || c.reason === 'changed_by_other_step');

export class CheckpointActions implements PanelChangeActions {
  constructor(
    private readonly registry: RunRegistry,
    private readonly panels: PanelManager,
    private readonly logger: Logger,
    /** cortex.policy.protectedPaths as set now. */
    private readonly protectedRules: () => ProtectedPathRules,
  ) {}

  /**
   * Asks once about the protected paths a revert would write (a modal naming each, with why) and
   * returns those the person confirmed: all of them, or none.
   */
  private async confirmProtected(conflicts: readonly RevertConflict[], what: string): Promise<string[]> {
    const pending = conflicts.filter((conflict) => conflict.reason === 'protected');
    if (pending.length === 0) return [];
    const write = `Write ${pending.length === 1 ? 'it' : `these ${pending.length}`} too`;
    const choice = await vscode.window.showWarningMessage(
      `${what} would write ${pending.length === 1 ? 'a protected path' : `${pending.length} protected paths`}. Write ${pending.length === 1 ? 'it' : 'them'}?`,
      {
        modal: true,
        detail: [
          ...pending.map((conflict) => `• ${conflict.path}: ${conflict.detail.replace(/; it was left alone.*$/, '')}`),
          '',
          "Protected paths can run code later (editor tasks, CI workflows, hooks). The contents come from the run's trace and checkpoint folder: write them only if you trust those files.",
        ].join('\n'),
      },
      write,
      'Leave them alone',
    );
    return choice === write ? pending.map((conflict) => conflict.path) : [];
  }

  /** The diff of one file's change (a step's, or the run's) in VS Code's diff editor. */
  async open(source: RunSource, stepId: string | undefined, path: string): Promise<void> {
    const review = await reviewOf(source);
    const summary = summarizeChanges(review.state, stepId).find((s) => s.path === path && !s.directory);
    if (!summary) throw new Error(`${stepId ? `step ${stepId}` : 'the run'} has no recorded change of ${path}`);
    const { before, after } = sides(summary);
    const dir = review.store.dir;
    const title = `${path} (${stepId ? `step ${stepId}` : 'run'}${summary.reverted ? `, reverted: ${summary.reverted}` : ''})`;
    await vscode.commands.executeCommand('vscode.diff', checkpointUri(dir, path, before), checkpointUri(dir, path, after), title, {
      preview: true,
      preserveFocus: true,
      viewColumn: this.besidePanel(source.runId),
    });
  }

  /** An editor column other than the panel's, so that opening a diff never hides the panel. */
  private besidePanel(runId: string): vscode.ViewColumn {
    return this.panels.get(runId)?.panel.viewColumn === vscode.ViewColumn.One ? vscode.ViewColumn.Two : vscode.ViewColumn.One;
  }

  /** Every changed file of a step or of the run in VS Code's multi-file diff. */
  async review(source: RunSource, stepId?: string): Promise<void> {
    const review = await reviewOf(source);
    const files = summarizeChanges(review.state, stepId).filter((s) => !s.directory);
    if (files.length === 0) {
      void vscode.window.showInformationMessage(`Cortex: ${stepId ? `step ${stepId}` : 'the run'} changed no file.`);
      return;
    }
    const dir = review.store.dir;
    const resources = files.map((summary) => {
      const { before, after } = sides(summary);
      return [vscode.Uri.file(join(review.workspace, summary.path)), checkpointUri(dir, summary.path, before), checkpointUri(dir, summary.path, after)];
    });
    // vscode.changes opens in the active group: make that one beside the panel, which stays visible.
    await vscode.commands.executeCommand(
      this.besidePanel(source.runId) === vscode.ViewColumn.One ? 'workbench.action.focusFirstEditorGroup' : 'workbench.action.focusSecondEditorGroup',
    );
    await vscode.commands.executeCommand('vscode.changes', `Cortex: changes of ${stepId ? `step ${stepId}` : 'the run'}`, resources);
  }

  /** Reverts a step (with the steps after it) or the whole run, after saying what it will do and asking. */
  async revert(source: RunSource, stepId?: string): Promise<void> {
    if (source.isLive()) {
      void vscode.window.showInformationMessage('Cortex: the run is still running. Revert its changes once it has ended.');
      return;
    }
    const review = await reviewOf(source);
    if (!review.events.some((event) => event.type === 'run_finished')) {
      void vscode.window.showInformationMessage(
        'Cortex: this run did not finish (it was interrupted). Resume it, or revert it from the CLI with cortex revert --force.',
      );
      return;
    }
    const stepIds = stepId ? [stepId] : undefined;
    const dry = await revertRecorded(review, { stepIds, dryRun: true, protectedPaths: this.protectedRules() });
    const scope = scopeText(stepIds, dry.stepIds);
    const actions = dry.outcome.files.map(fileLine).filter((line): line is string => line !== undefined);
    const conflicts = dry.outcome.conflicts;
    if (actions.length === 0 && conflicts.length === 0) {
      void vscode.window.showInformationMessage(`Cortex: nothing to revert — ${scope} changed no file that is not reverted already.`);
      return;
    }
    const overwrite = forceable(conflicts);
    const detail = [
      ...(actions.length ? ['This will:', ...actions.map((line) => `• ${line}`)] : ['Nothing can be put back without overwriting changes made since.']),
      ...(conflicts.length ? ['', 'Conflicts:', ...conflicts.map((c) => `• ${conflictLine(c)}`)] : []),
      '',
      'What a revert overwrites is saved: it can be undone.',
    ].join('\n');
    const revert = 'Revert';
    const revertAll = `Revert and overwrite ${overwrite.length} changed file${overwrite.length === 1 ? '' : 's'}`;
    const choice = await vscode.window.showWarningMessage(
      `Revert the changes of ${scope}?`,
      { modal: true, detail },
      ...(actions.length || conflicts.some((c) => c.reason === 'protected') ? [revert] : []),
      ...(overwrite.length ? [revertAll] : []),
    );
    if (choice !== revert && choice !== revertAll) return;
    const protectedPaths = this.protectedRules();
    const confirmed = await this.confirmProtected(conflicts, `Reverting ${scope}`);
    const result = await revertRecorded(review, { stepIds, force: choice === revertAll, protectedPaths, confirmed });
    await this.record(source, result.event);
    await this.tell(source, result, `Reverted ${scope}`, true);
  }

  /** Undoes the run's last revert. */
  async undo(source: RunSource): Promise<void> {
    const review = await reviewOf(source);
    const protectedPaths = this.protectedRules();
    const dry = await undoLastRevert(review, { dryRun: true, protectedPaths });
    const confirmed = dry ? await this.confirmProtected(dry.outcome.conflicts, 'Undoing the revert') : [];
    const result = await undoLastRevert(review, { protectedPaths, confirmed });
    if (!result) {
      void vscode.window.showInformationMessage('Cortex: there is no revert to undo.');
      return;
    }
    await this.record(source, result.event);
    await this.tell(source, result, 'Undid the revert', false);
  }

  private async tell(source: RunSource, result: RevertResult, what: string, offerUndo: boolean): Promise<void> {
    const put = result.outcome.files.filter((f) => fileLine(f) !== undefined).length;
    const left = result.outcome.conflicts;
    const text = `Cortex: ${what}: ${put} path${put === 1 ? '' : 's'} put back${left.length ? `; ${left.length} left alone (${left.map((c) => c.path).join(', ')})` : ''}.`;
    this.logger.info(`${text}${left.length ? ` ${left.map(conflictLine).join('; ')}` : ''}`);
    const buttons = offerUndo ? ['Undo'] : [];
    const choice = left.length ? await vscode.window.showWarningMessage(text, ...buttons) : await vscode.window.showInformationMessage(text, ...buttons);
    if (choice === 'Undo') await this.undo((await this.registry.source(source.runId)) ?? source);
  }

  /**
   * Appends a revert to the run: to the trace file and, for a run still in memory, to its log
   * (its panel follows); a panel of a run read from its trace is shown again from the trace.
   */
  private async record(source: RunSource, event: NewRunEvent): Promise<void> {
    const traceFile = source.traceFile!;
    const live = this.registry.get(source.runId);
    if (live) {
      const stamped = live.log.append(event);
      await appendRegular(traceFile, `${JSON.stringify(stamped)}\n`, 'trace file');
      return;
    }
    await appendToTrace(traceFile, source.events(), event);
    this.panels.get(source.runId)?.showSource(await this.registry.fromTraceFile(traceFile));
  }
}

import type { RecentRun } from './runIndex';

// What the Cortex view in the activity bar lists, as plain data (the VS Code tree items are made
// from it in homeView.ts): the task box, the runs going on, the approvals waiting, the model in
// use and the recent runs. Kept free of `vscode` so the rules are unit-tested.

/** A run this window drives right now. */
export interface HomeLiveRun {
  runId: string;
  task: string;
  /** One line, as the status bar says it ("2/5 steps done — Write the test"). */
  progress: string;
}

/** A tool call waiting for the user's answer. */
export interface HomeApproval {
  runId: string;
  requestId: string;
  /** What would run: the command line, or the tool and its file. */
  summary: string;
  reason: string;
}

export interface HomeFacts {
  live: HomeLiveRun[];
  approvals: HomeApproval[];
  model: { model: string; baseUrl: string; fallbackModels: string[] };
  /** Recent runs, newest first (the run index). */
  recent: RecentRun[];
  /** Run ids of recent runs this window can resume (interrupted, their folder open here). */
  resumable: ReadonlySet<string>;
  /** The keybinding of Run agent task, as the user reads it. */
  runTaskKey: string;
}

/** `contextValue` of a run item: which inline actions package.json's menus give it. */
export type RunItemKind =
  'cortex.run.live' | 'cortex.run.interrupted' | 'cortex.run.failed' | 'cortex.run.cancelled' | 'cortex.run.completed' | 'cortex.run.stopped';

export interface HomeNode {
  id: string;
  label: string;
  description?: string;
  tooltip?: string;
  /** A codicon id. */
  icon?: string;
  /** Command run on click (Enter), with its arguments. */
  command?: { id: string; args: unknown[] };
  contextValue?: string;
  /** Present for sections; expanded unless `collapsed`. */
  children?: HomeNode[];
  collapsed?: boolean;
  /** Carried by run items so inline actions receive `{ runId }`. */
  runId?: string;
}

const TASK_LABEL_MAX = 80;

function oneLine(text: string, max = TASK_LABEL_MAX): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** "https://api.openai.com/v1" → "api.openai.com"; an unparsable URL is shown as written. */
export function endpointHost(baseUrl: string): string {
  try {
    return new URL(baseUrl).host || baseUrl;
  } catch {
    return baseUrl;
  }
}

/** "3 min ago" style age of a run, from `now`. */
export function age(startedAt: number, now: number): string {
  const seconds = Math.max(0, Math.round((now - startedAt) / 1000));
  if (seconds < 60) return 'just now';
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `${hours} h ago`;
  return `${Math.round(hours / 24)} days ago`;
}

/** How a recent run is shown: an entry still "running" that nobody drives was interrupted. */
export function recentRunKind(run: RecentRun, resumable: boolean): RunItemKind {
  if (run.status !== 'running') return `cortex.run.${run.status}`;
  return resumable ? 'cortex.run.interrupted' : 'cortex.run.stopped';
}

const KIND_TEXT: Record<Exclude<RunItemKind, 'cortex.run.live'>, { word: string; icon: string }> = {
  'cortex.run.completed': { word: 'completed', icon: 'pass' },
  'cortex.run.failed': { word: 'failed', icon: 'error' },
  'cortex.run.cancelled': { word: 'cancelled', icon: 'circle-slash' },
  'cortex.run.interrupted': { word: 'interrupted, can resume', icon: 'debug-pause' },
  'cortex.run.stopped': { word: 'stopped without finishing', icon: 'debug-pause' },
};

/** The view's top-level items, in order. */
export function homeNodes(facts: HomeFacts, now: number): HomeNode[] {
  const nodes: HomeNode[] = [
    {
      id: 'task',
      label: 'Run agent task…',
      description: facts.runTaskKey,
      tooltip: 'Describe a task for the open folder; its plan opens beside the editor.',
      icon: 'play',
      command: { id: 'cortex.runTask', args: [] },
      contextValue: 'cortex.task',
    },
  ];
  const liveIds = new Set(facts.live.map((run) => run.runId));
  for (const run of facts.live)
    nodes.push({
      id: `live:${run.runId}`,
      label: oneLine(run.task),
      description: run.progress,
      tooltip: `${run.task}\n${run.progress}\nClick to show its panel.`,
      icon: 'loading~spin',
      command: { id: 'cortex.showPanel', args: [run.runId] },
      contextValue: 'cortex.run.live',
      runId: run.runId,
    });
  if (facts.approvals.length > 0)
    nodes.push({
      id: 'approvals',
      label: `${facts.approvals.length} approval${facts.approvals.length === 1 ? '' : 's'} waiting`,
      icon: 'bell',
      contextValue: 'cortex.approvals',
      children: facts.approvals.map((approval) => ({
        id: `approval:${approval.runId}:${approval.requestId}`,
        label: oneLine(approval.summary),
        description: oneLine(approval.reason, 60),
        tooltip: `${approval.summary}\n${approval.reason}\nClick to answer it in the run's panel.`,
        icon: 'bell-dot',
        command: { id: 'cortex.showPanel', args: [approval.runId] },
        contextValue: 'cortex.approval',
        runId: approval.runId,
      })),
    });
  const { model, baseUrl, fallbackModels } = facts.model;
  nodes.push({
    id: 'model',
    label: `Model: ${model}`,
    description: endpointHost(baseUrl),
    tooltip: `${model} at ${baseUrl}${fallbackModels.length > 0 ? `\nFallback: ${fallbackModels.join(', ')}` : ''}\nClick to choose the model.`,
    icon: 'hubot',
    command: { id: 'cortex.pickModel', args: [] },
    contextValue: 'cortex.model',
  });
  const recent = facts.recent.filter((run) => !liveIds.has(run.runId));
  nodes.push({
    id: 'recent',
    label: 'Recent runs',
    description: recent.length === 0 ? 'none yet' : undefined,
    icon: 'history',
    contextValue: 'cortex.recent',
    children: recent.map((run) => {
      const kind = recentRunKind(run, facts.resumable.has(run.runId));
      const { word, icon } = KIND_TEXT[kind as Exclude<RunItemKind, 'cortex.run.live'>];
      return {
        id: `run:${run.runId}`,
        label: oneLine(run.task),
        description: `${word} · ${age(run.startedAt, now)}`,
        tooltip: `${run.task}\n${word}, started ${new Date(run.startedAt).toLocaleString()}${run.workspace ? `\nin ${run.workspace}` : ''}\nClick to open its plan (replayed from its trace).`,
        icon,
        command: { id: 'cortex.openRun', args: [{ runId: run.runId }] },
        contextValue: kind,
        runId: run.runId,
      };
    }),
  });
  return nodes;
}

/** The models the picker offers: the one in use, then the fallbacks, each once. */
export function modelChoices(model: { model: string; fallbackModels: string[] }): Array<{ model: string; inUse: boolean }> {
  const seen = new Set<string>();
  return [model.model, ...model.fallbackModels]
    .filter((name) => {
      if (seen.has(name)) return false;
      seen.add(name);
      return true;
    })
    .map((name) => ({ model: name, inUse: name === model.model }));
}

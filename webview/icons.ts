import type { RunStatus, StepStatus, ToolCallStatus } from '../src/core/plan/planTypes';

// Every icon of the panel comes from VS Code's own icon font (@vscode/codicons; the panel loads
// dist/codicons/codicon.css, copied there by scripts/build.mjs). Symbol characters such as ✓ or an
// hourglass depend on the fonts a machine has and render as empty boxes where no emoji or symbol
// font is installed; the codicon font ships with the extension. Colours stay with the panel's CSS
// (--vscode-* theme variables), which colours the icon like text.

/** The codicon names the panel uses (each needs a `.codicon-<name>` rule in codicon.css; a unit test checks). */
export const CODICONS = [
  'check',
  'circle-large-outline',
  'circle-slash',
  'close',
  'error',
  'info',
  'loading',
  'pass',
  'shield',
  'warning',
  'watch',
  'zoom-in',
  'zoom-out',
] as const;

export type Codicon = (typeof CODICONS)[number];

export const STEP_STATUS_ICON: Record<StepStatus, Codicon> = {
  not_started: 'circle-large-outline',
  in_progress: 'loading',
  completed: 'pass',
  failed: 'error',
  blocked: 'circle-slash',
};

export const CALL_STATUS_ICON: Record<ToolCallStatus, Codicon> = {
  pending: 'loading',
  success: 'check',
  error: 'error',
  awaiting_approval: 'shield',
  rejected: 'circle-slash',
};

export const RUN_STATUS_ICON: Record<RunStatus, Codicon> = {
  running: 'loading',
  completed: 'pass',
  failed: 'error',
  cancelled: 'circle-slash',
};

export const NOTICE_ICON: Record<'info' | 'warning' | 'error', Codicon> = { info: 'info', warning: 'warning', error: 'error' };

/** The full class attribute of an icon element. */
export function iconClass(name: Codicon, className?: string): string {
  return `codicon codicon-${name}${className ? ` ${className}` : ''}`;
}

/**
 * An icon element. With a `label` it is an image with that accessible name (and hover text);
 * without one it is decoration next to text that already says the same, hidden from screen readers.
 */
export function icon(name: Codicon, className?: string, label?: string): HTMLSpanElement {
  const span = document.createElement('span');
  span.className = iconClass(name, className);
  if (label) {
    span.setAttribute('role', 'img');
    span.setAttribute('aria-label', label);
    span.title = label;
  } else span.setAttribute('aria-hidden', 'true');
  return span;
}

/** Switches an existing icon element to another icon (keeps its other classes). */
export function setIcon(span: HTMLElement, name: Codicon, className?: string): void {
  const next = iconClass(name, className);
  if (span.className !== next) span.className = next;
}

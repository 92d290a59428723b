import { el, iconButton } from './dom';
import { icon, NOTICE_ICON } from './icons';

// Host notices (host/notice): info fades after a while, warnings and errors stay until closed.

const INFO_TIMEOUT_MS = 8000;
const MAX_NOTICES = 4;
const LEVEL_LABEL = { info: 'Information', warning: 'Warning', error: 'Error' } as const;

export class Notices {
  readonly root: HTMLElement;

  constructor() {
    this.root = el('div', 'notices');
    this.root.setAttribute('aria-live', 'polite');
  }

  show(level: 'info' | 'warning' | 'error', message: string): void {
    const item = el('div', `notice notice-${level}`);
    if (level === 'error') item.setAttribute('role', 'alert');
    const glyph = icon(NOTICE_ICON[level], 'notice-glyph', LEVEL_LABEL[level]);
    const close = iconButton('close', 'btn-icon', 'Dismiss notice', () => item.remove());
    item.append(glyph, el('span', 'notice-text', message), close);
    this.root.append(item);
    while (this.root.childElementCount > MAX_NOTICES) this.root.firstElementChild!.remove();
    if (level === 'info') setTimeout(() => item.remove(), INFO_TIMEOUT_MS);
  }
}

import { button, el } from './dom';

// Host notices (host/notice): info fades after a while, warnings and errors stay until closed.

const INFO_TIMEOUT_MS = 8000;
const MAX_NOTICES = 4;

export class Notices {
  readonly root: HTMLElement;

  constructor() {
    this.root = el('div', 'notices');
    this.root.setAttribute('aria-live', 'polite');
  }

  show(level: 'info' | 'warning' | 'error', message: string): void {
    const item = el('div', `notice notice-${level}`);
    if (level === 'error') item.setAttribute('role', 'alert');
    const glyph = el('span', 'notice-glyph', level === 'error' ? '✕' : level === 'warning' ? '⚠' : 'ℹ');
    glyph.setAttribute('aria-hidden', 'true');
    const close = button('✕', 'btn-icon', 'Dismiss notice', () => item.remove());
    item.append(glyph, el('span', 'notice-text', message), close);
    this.root.append(item);
    while (this.root.childElementCount > MAX_NOTICES) this.root.firstElementChild!.remove();
    if (level === 'info') setTimeout(() => item.remove(), INFO_TIMEOUT_MS);
  }
}

import { el } from './dom';
import { icon } from './icons';

// The drift badge on a node and a list row (docs/design.md, “Step scopes and plan approval”): how many of the
// step's calls or changes left its approved scope. Theme colours come from the panel's CSS.

/** Shows or removes the badge in `head`; a new badge goes before `before` (by default after the node's proof badge or id). */
export function setDriftBadge(head: HTMLElement, count: number, before?: Element): void {
  let badge = head.querySelector<HTMLSpanElement>(':scope > .drift-badge');
  if (count === 0) {
    badge?.remove();
    return;
  }
  if (badge?.dataset.count === String(count)) return;
  if (!badge) {
    badge = el('span', 'drift-badge');
    head.insertBefore(
      badge,
      before ?? head.querySelector(':scope > .proof-badge')?.nextSibling ?? head.querySelector(':scope > .node-id')?.nextSibling ?? null,
    );
  }
  badge.dataset.count = String(count);
  const label = `drift: ${count} call${count === 1 ? '' : 's'} or change${count === 1 ? '' : 's'} outside the step's approved scope`;
  badge.title = label;
  badge.setAttribute('aria-label', label);
  badge.replaceChildren(icon('warning', 'drift-glyph'), el('span', 'drift-text', count === 1 ? 'drift' : `${count} drift`));
}

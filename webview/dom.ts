import { icon, type Codicon } from './icons';

// Tiny DOM helpers. Text goes in through textContent only: nothing the host sends is ever parsed
// as HTML.

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** A custom element (the @vscode-elements components). */
export function custom(tag: string, className?: string): HTMLElement {
  const node = document.createElement(tag);
  if (className) node.className = className;
  return node;
}

export function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string> = {}): SVGElementTagNameMap[K] {
  const node = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

/** A real <button> with visible text and an accessible name. */
export function button(text: string, className: string, ariaLabel: string, onClick: (ev: MouseEvent, self: HTMLButtonElement) => void): HTMLButtonElement {
  const b = el('button', className, text);
  b.type = 'button';
  b.setAttribute('aria-label', ariaLabel);
  b.addEventListener('click', (ev) => {
    ev.stopPropagation();
    // Disable before anything else so a double click cannot act twice.
    if (b.disabled) return;
    onClick(ev, b);
  });
  return b;
}

/** A real <button> showing only an icon: the accessible name is also its hover text. */
export function iconButton(name: Codicon, className: string, ariaLabel: string, onClick: (ev: MouseEvent, self: HTMLButtonElement) => void): HTMLButtonElement {
  const b = button('', className, ariaLabel, onClick);
  b.title = ariaLabel;
  b.append(icon(name));
  return b;
}

/** Sets textContent only when it changed (restyles touch many nodes; unchanged text costs nothing). */
export function setText(node: Node, text: string): void {
  if (node.textContent !== text) node.textContent = text;
}

export function setAttr(node: Element, name: string, value: string | undefined): void {
  if (value === undefined) {
    if (node.hasAttribute(name)) node.removeAttribute(name);
  } else if (node.getAttribute(name) !== value) node.setAttribute(name, value);
}

/** A labelled block of preformatted text (JSON, results, output). */
export function pre(text: string, className = 'pre'): HTMLPreElement {
  return el('pre', className, text);
}

/** A small count badge (@vscode-elements' vscode-badge). */
export function badge(text: string): HTMLElement {
  const b = custom('vscode-badge', 'badge');
  b.textContent = text;
  return b;
}

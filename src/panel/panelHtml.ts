import { randomBytes } from 'node:crypto';

// The panel's HTML shell: an empty body, one external script with a nonce, and a strict CSP (no
// inline script, no eval, nothing from the network). The webview bundle builds its DOM itself.

export interface PanelHtmlOptions {
  /** `webview.cspSource`. */
  cspSource: string;
  nonce: string;
  /** `webview.asWebviewUri` of dist/webview.js. */
  scriptUri: string;
  /** `webview.asWebviewUri` of the style sheets, in order. */
  styleUris: string[];
  title: string;
}

/** A fresh CSP nonce per page load, from the OS's CSPRNG (never Math.random). */
export function createNonce(): string {
  return randomBytes(16).toString('base64');
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `img-src ${cspSource} data:`,
    `style-src ${cspSource}`,
    `font-src ${cspSource}`,
    `script-src 'nonce-${nonce}'`,
    "connect-src 'none'",
    "frame-src 'none'",
    "form-action 'none'",
    "base-uri 'none'",
  ].join('; ');
}

export function renderPanelHtml(options: PanelHtmlOptions): string {
  const csp = contentSecurityPolicy(options.cspSource, options.nonce);
  const styles = options.styleUris.map((href) => `  <link rel="stylesheet" href="${escapeHtml(href)}">`).join('\n');
  return `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="UTF-8">
  <meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}">
  <meta name="viewport" content="width=device-width, initial-scale=1.0">
  <title>${escapeHtml(options.title)}</title>
${styles}
</head>
<body>
  <script nonce="${escapeHtml(options.nonce)}" src="${escapeHtml(options.scriptUri)}"></script>
</body>
</html>`;
}

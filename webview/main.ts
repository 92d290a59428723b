import './zodConfig';
import '@vscode-elements/elements/dist/vscode-badge/index.js';
import '@vscode-elements/elements/dist/vscode-collapsible/index.js';
import '@vscode-elements/elements/dist/vscode-textarea/index.js';
import { PanelApp, type VsCodeApi } from './app';

// Entry of dist/webview.js (browser IIFE, exports nothing). The host page only loads this script
// and media/panel.css into an empty <body>; the @vscode-elements components used are bundled here.

declare function acquireVsCodeApi(): VsCodeApi;

new PanelApp(document, acquireVsCodeApi()).start(window);

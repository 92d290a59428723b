// A stand-in for the `vscode` module, just enough for activate(): it records what the extension
// registers (commands, serializers, status bar items, tree views, language model tools, executed commands) so the activation bench
// can check what activation did, not only how long it took. Plain CommonJS: loaded by probe.cjs.
'use strict';
const path = require('node:path');
const os = require('node:os');

const recorded = { commands: [], handlers: new Map(), serializers: [], statusBarItems: [], executed: [], messages: [], tools: [], views: [] };
const disposable = () => ({ dispose() {} });
const event = () => () => disposable();

class Uri {
  constructor(fsPath) {
    this.scheme = 'file';
    this.fsPath = fsPath;
    this.path = fsPath;
  }
  static file(fsPath) {
    return new Uri(fsPath);
  }
  static joinPath(base, ...parts) {
    return new Uri(path.join(base.fsPath, ...parts));
  }
  toString() {
    return `file://${this.fsPath}`;
  }
}

class Memento {
  constructor() {
    this.values = new Map();
  }
  get(key, fallback) {
    return this.values.has(key) ? this.values.get(key) : fallback;
  }
  keys() {
    return [...this.values.keys()];
  }
  update(key, value) {
    this.values.set(key, value);
    return Promise.resolve();
  }
  setKeysForSync() {}
}

const logChannel = () => {
  const lines = [];
  const log = (level) => (message) => lines.push(`${level} ${message}`);
  return {
    name: 'Cortex',
    lines,
    trace: log('trace'),
    debug: log('debug'),
    info: log('info'),
    warn: log('warn'),
    error: log('error'),
    append() {},
    appendLine() {},
    show() {},
    hide() {},
    clear() {},
    replace() {},
    dispose() {},
    logLevel: 2,
    onDidChangeLogLevel: event(),
  };
};

const configuration = () => ({ get: (_key, fallback) => fallback, has: () => false, inspect: () => undefined, update: () => Promise.resolve() });

module.exports = {
  recorded,
  version: '1.100.0-stub',
  Uri,
  StatusBarAlignment: { Left: 1, Right: 2 },
  ViewColumn: { Active: -1, Beside: -2, One: 1, Two: 2 },
  ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
  ThemeColor: class ThemeColor {
    constructor(id) {
      this.id = id;
    }
  },
  Disposable: class Disposable {
    constructor(callOnDispose) {
      this.dispose = callOnDispose;
    }
  },
  EventEmitter: class EventEmitter {
    constructor() {
      this.event = event();
    }
    fire() {}
    dispose() {}
  },
  window: {
    createOutputChannel: () => logChannel(),
    createStatusBarItem: (id) => {
      const item = {
        id,
        text: '',
        tooltip: undefined,
        command: undefined,
        visible: false,
        show() {
          this.visible = true;
        },
        hide() {
          this.visible = false;
        },
        dispose() {},
      };
      recorded.statusBarItems.push(item);
      return item;
    },
    registerTreeDataProvider: (viewId) => {
      recorded.views.push(viewId);
      return disposable();
    },
    showInputBox: () => Promise.resolve(undefined),
    showQuickPick: () => Promise.resolve(undefined),
    registerWebviewPanelSerializer: (viewType) => {
      recorded.serializers.push(viewType);
      return disposable();
    },
    showInformationMessage: (message) => (recorded.messages.push(message), Promise.resolve(undefined)),
    showWarningMessage: (message) => (recorded.messages.push(message), Promise.resolve(undefined)),
    showErrorMessage: (message) => (recorded.messages.push(message), Promise.resolve(undefined)),
    onDidChangeActiveColorTheme: event(),
  },
  commands: {
    registerCommand: (id, handler) => {
      recorded.commands.push(id);
      recorded.handlers.set(id, handler);
      return disposable();
    },
    executeCommand: (...args) => {
      recorded.executed.push(args);
      return Promise.resolve(undefined);
    },
  },
  lm: {
    selectChatModels: () => Promise.resolve([]),
    onDidChangeChatModels: event(),
    registerTool: (name) => {
      recorded.tools.push(name);
      return disposable();
    },
  },
  workspace: {
    isTrusted: true,
    workspaceFolders: undefined,
    getConfiguration: configuration,
    onDidChangeConfiguration: event(),
    onDidGrantWorkspaceTrust: event(),
  },
  /** A fresh ExtensionContext over a temporary storage folder, as on a profile's first start. */
  context(extensionPath) {
    const storage = path.join(os.tmpdir(), 'cortex-activation-bench');
    return {
      subscriptions: [],
      extensionUri: Uri.file(extensionPath),
      extensionPath,
      extension: { id: 'cortex-dev.cortex-agent', extensionUri: Uri.file(extensionPath), packageJSON: require(path.join(extensionPath, 'package.json')) },
      globalStorageUri: Uri.file(path.join(storage, 'global')),
      storageUri: Uri.file(path.join(storage, 'workspace')),
      logUri: Uri.file(path.join(storage, 'logs')),
      globalState: new Memento(),
      workspaceState: new Memento(),
      secrets: { get: () => Promise.resolve(undefined), store: () => Promise.resolve(), delete: () => Promise.resolve(), onDidChange: event() },
      environmentVariableCollection: {},
      extensionMode: 1,
    };
  },
};

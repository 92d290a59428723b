// What the core needs from its host (VS Code or the CLI). Nothing here imports `vscode`.

export interface Logger {
  trace(message: string, data?: Record<string, unknown>): void;
  debug(message: string, data?: Record<string, unknown>): void;
  info(message: string, data?: Record<string, unknown>): void;
  warn(message: string, data?: Record<string, unknown>): void;
  error(message: string, data?: Record<string, unknown>): void;
}

export const silentLogger: Logger = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };

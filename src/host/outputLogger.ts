import type * as vscode from 'vscode';
import type { Logger } from '../core/ports';

/** The core's Logger port over the "Cortex" LogOutputChannel (the user picks the level in the channel). */
export function createOutputLogger(channel: vscode.LogOutputChannel): Logger {
  const format = (message: string, data?: Record<string, unknown>) => {
    if (!data || Object.keys(data).length === 0) return message;
    try {
      return `${message} ${JSON.stringify(data)}`;
    } catch {
      return `${message} [unserialisable data]`;
    }
  };
  return {
    trace: (message, data) => channel.trace(format(message, data)),
    debug: (message, data) => channel.debug(format(message, data)),
    info: (message, data) => channel.info(format(message, data)),
    warn: (message, data) => channel.warn(format(message, data)),
    error: (message, data) => channel.error(format(message, data)),
  };
}

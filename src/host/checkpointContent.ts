import { isAbsolute, relative, resolve } from 'node:path';
import * as vscode from 'vscode';
import { ContentStore, HASH_PATTERN } from '../core/checkpoints/contentStore';
import { looksBinary } from '../core/files/textFile';

// The saved contents of a run's changes as read-only documents, for VS Code's diff editor
// (docs/design.md, “Checkpoints and revert”). A URI names the run's checkpoint folder, the content's hash and, for its
// tab, the file's path: cortex-checkpoint:/src/a.ts?dir=…&hash=… . An absent side (a created or
// deleted file) is `hash=absent`; a content that was not saved is `hash=unsaved` with the reason.
// Only checkpoint folders under the extension's storage are read.

export const CHECKPOINT_SCHEME = 'cortex-checkpoint';

export type CheckpointSide = { kind: 'content'; hash: string } | { kind: 'absent' } | { kind: 'unsaved'; why: string };

/** The URI of one side of a change: `path` is the workspace-relative file (the tab's name). */
export function checkpointUri(checkpointsDir: string, path: string, side: CheckpointSide): vscode.Uri {
  const query = new URLSearchParams({ dir: checkpointsDir, hash: side.kind === 'content' ? side.hash : side.kind });
  if (side.kind === 'unsaved') query.set('why', side.why);
  return vscode.Uri.from({ scheme: CHECKPOINT_SCHEME, path: `/${path}`, query: query.toString() });
}

export class CheckpointContentProvider implements vscode.TextDocumentContentProvider {
  /** @param storageRoot checkpoint folders must be inside it (the runs folder of the global storage). */
  constructor(private readonly storageRoot: string) {}

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const query = new URLSearchParams(uri.query);
    const dir = query.get('dir') ?? '';
    const hash = query.get('hash') ?? '';
    if (hash === 'absent') return '';
    if (hash === 'unsaved') return `(The content of ${uri.path.slice(1)} here was not saved: ${query.get('why') ?? 'unknown reason'}.)\n`;
    const inside = relative(this.storageRoot, resolve(dir));
    if (!isAbsolute(dir) || inside.startsWith('..') || isAbsolute(inside)) throw new Error(`not a Cortex checkpoint folder: ${dir}`);
    if (!HASH_PATTERN.test(hash)) throw new Error(`not a content hash: ${hash}`);
    const bytes = await new ContentStore(dir).get(hash);
    if (!bytes) return `(The saved content of ${uri.path.slice(1)} is missing from the run's checkpoint folder.)\n`;
    if (looksBinary(bytes)) return `(Binary content, ${bytes.length.toLocaleString('en-US')} bytes: not shown.)\n`;
    return bytes.toString('utf8');
  }
}

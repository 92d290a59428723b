import type { FileChange } from '../plan/changeSchema';
import type { CapturedFile } from './fileCapture';
import { changedLineCounts } from './lineStats';

/**
 * The change of `relative` from `before` to `after` as recorded in `files_changed`, or undefined
 * when nothing changed (same content, or absent on both sides). Line counts when both sides'
 * bytes are known; `binary` when either side is not text.
 */
export function describeChange(relative: string, before: CapturedFile, after: CapturedFile, directory = false): FileChange | undefined {
  if (!before.exists && !after.exists) return undefined;
  if (directory || before.directory || after.directory) {
    if (before.exists === after.exists) return undefined;
    return { path: relative, kind: after.exists ? 'created' : 'deleted', before: null, after: null, restorable: true, directory: true };
  }
  if (before.exists && after.exists && before.hash !== null && before.hash === after.hash) return undefined;
  const kind = !before.exists ? 'created' : !after.exists ? 'deleted' : 'modified';
  const change: FileChange = { path: relative, kind, before: before.hash, after: after.hash, restorable: before.restorable };
  const note = before.note ?? after.note;
  if (note) change.note = note;
  const knownSides = (!before.exists || before.bytes !== undefined) && (!after.exists || after.bytes !== undefined);
  if (!knownSides) return change;
  const counts = changedLineCounts(before.bytes ?? Buffer.alloc(0), after.bytes ?? Buffer.alloc(0));
  if (counts) Object.assign(change, counts);
  else change.binary = true;
  return change;
}

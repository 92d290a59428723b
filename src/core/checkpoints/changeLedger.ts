import type { FileStamp } from './workspaceScan';

// The run's memory of what it recorded, per path: the last content it saw there and when. Two uses:
// - attribution: a command's scan also sees what file tools of other steps (or another command)
//   wrote while it ran; a change already recorded by another call since the command started, with
//   the same content, is theirs, not the command's;
// - speed: a file the run itself wrote last, still with the same stat stamp, has a known hash and
//   a stored content, so the next write to it need not read and hash it again.

export interface LedgerEntry {
  /** Order of recording (compare with `mark()`). */
  order: number;
  callId: string;
  /** Content hash after that call; null when it left no file. */
  after: string | null;
  /** The file's stamp right after it was recorded, when known. */
  stamp?: FileStamp;
}

export class ChangeLedger {
  private order = 0;
  private readonly latest = new Map<string, LedgerEntry>();

  /** A point in time: entries recorded later have a greater order. */
  mark(): number {
    return this.order;
  }

  note(path: string, callId: string, after: string | null, stamp?: FileStamp): void {
    this.latest.set(path, { order: ++this.order, callId, after, stamp });
  }

  /** The last entry for `path` recorded after `mark` by another call than `callId`. */
  recordedSince(path: string, mark: number, callId: string): LedgerEntry | undefined {
    const entry = this.latest.get(path);
    return entry && entry.order > mark && entry.callId !== callId ? entry : undefined;
  }

  /** The hash of `path` when its current stamp is the one recorded with its last content. */
  knownHash(path: string, stamp: FileStamp): string | undefined {
    const entry = this.latest.get(path);
    if (!entry?.stamp || entry.after === null) return undefined;
    const s = entry.stamp;
    return s.size === stamp.size && s.mtimeMs === stamp.mtimeMs && s.ctimeMs === stamp.ctimeMs && s.ino === stamp.ino ? entry.after : undefined;
  }
}

import { spawn } from 'node:child_process';
import { rm, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { guardedGitArgs, guardedGitEnv } from '../sandbox/gitGuard';
import { findProgram } from '../sandbox/programLookup';
import { sameStamp, type FileStamp } from './workspaceScan';

// The pre-images of what a command may change come from a shadow git repository: its GIT_DIR is in
// the run's checkpoint folder, its work tree is the workspace. Before each command the files the
// workspace scan found are staged into its own index (git re-reads only files whose stat changed)
// and written as a tree; after the command the old contents of the files that changed are read
// from that tree. The workspace's own .git (config, index, hooks, stash, branches) is never read or
// written: every git here runs with GIT_DIR and GIT_INDEX_FILE pointing at the shadow, without the
// system and user configuration, with the guard settings that stop git from starting programs
// (sandbox/gitGuard.ts), and with attributes that switch off every conversion (line endings,
// filters, encodings), so a blob holds exactly the bytes that were on disk.

/** $GIT_DIR/info/attributes beats every .gitattributes of the work tree. */
const NO_CONVERSION_ATTRIBUTES = '* -text -eol -filter -ident -working-tree-encoding\n';

const SHADOW_CONFIG = `[core]
\trepositoryformatversion = 0
\tbare = false
\tfilemode = true
\tautocrlf = false
\tsafecrlf = false
\tsymlinks = true
\tfsmonitor = false
\thooksPath = /dev/null
\tuntrackedCache = false
\tquotepath = false
\tlogallrefupdates = false
[gc]
\tauto = 0
[index]
\tthreads = true
`;

interface GitResult {
  code: number | null;
  stdout: Buffer;
  stderr: string;
}

export class ShadowGitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ShadowGitError';
  }
}

/** See `stagedAt`. */
const RACY_MS = 1000;

/** Paths git can take through its line-based inputs. */
function gitSafe(relative: string): boolean {
  return !relative.includes('\n') && !relative.includes('\0');
}

export class ShadowGit {
  /** Paths in the shadow index with the stamp they had when staged. */
  private indexed = new Map<string, FileStamp>();
  /** The tree of the last snapshot: reused while nothing changed. */
  private lastTree: string | undefined;
  /**
   * When the index was last updated. A file modified less than a second before that could have
   * been written again since within the same timestamp tick, with the same size: such a file is
   * always handed to git, which compares its content (git's own "racily clean" rule).
   */
  private stagedAt = 0;
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly git: string,
    readonly gitDir: string,
    private readonly workTree: string,
  ) {}

  /**
   * A shadow repository in `gitDir` for the workspace `workTree` (a real path), or undefined when
   * git is not installed. Only a `git` outside the workspace is used.
   */
  static async create(gitDir: string, workTree: string, env: NodeJS.ProcessEnv = process.env): Promise<ShadowGit | undefined> {
    const git = await findProgram('git', { pathValue: env.PATH, cwd: workTree, realRoot: workTree, outsideWorkspaceOnly: true });
    if (!git) return undefined;
    const shadow = new ShadowGit(git, gitDir, workTree);
    await mkdir(gitDir, { recursive: true, mode: 0o700 });
    const init = await shadow.run(['init', '--quiet', '--bare', gitDir], undefined, false);
    if (init.code !== 0) throw new ShadowGitError(`git init of the checkpoint repository failed: ${init.stderr.trim()}`);
    await writeFile(path.join(gitDir, 'config'), SHADOW_CONFIG);
    await mkdir(path.join(gitDir, 'info'), { recursive: true });
    await writeFile(path.join(gitDir, 'info', 'attributes'), NO_CONVERSION_ATTRIBUTES);
    // Nothing the scan skips is staged; this is belt and braces for paths it could not see.
    await writeFile(path.join(gitDir, 'info', 'exclude'), '.git\nnode_modules/\n');
    return shadow;
  }

  private environment(withRepository: boolean): Record<string, string> {
    const base: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C', LC_ALL: 'C' };
    const env = guardedGitEnv(base);
    if (!withRepository) return env;
    return {
      ...env,
      GIT_DIR: this.gitDir,
      GIT_WORK_TREE: this.workTree,
      GIT_INDEX_FILE: path.join(this.gitDir, 'index'),
      GIT_LITERAL_PATHSPECS: '1',
      GIT_OPTIONAL_LOCKS: '0',
    };
  }

  private run(args: string[], input?: Buffer | string, withRepository = true): Promise<GitResult> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.git, guardedGitArgs(args), {
        cwd: withRepository ? this.workTree : undefined,
        env: this.environment(withRepository),
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      const out: Buffer[] = [];
      let err = '';
      child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
      child.stderr.on('data', (chunk: Buffer) => {
        if (err.length < 4000) err += chunk.toString('utf8');
      });
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out), stderr: err }));
      child.stdin.on('error', () => undefined);
      child.stdin.end(input ?? '');
    });
  }

  /** Runs git operations one at a time (they share one index). */
  private serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /**
   * Stages exactly `files` (relative paths from a scan, with their stamps) and returns the id of a
   * tree holding their current contents. Only files whose stamp differs from when they were last
   * staged go to git; files staged before and not listed now leave the index. Nothing changed: the
   * last tree is returned without running git.
   */
  snapshot(files: ReadonlyMap<string, FileStamp>): Promise<string> {
    return this.serial(async () => {
      const changed: string[] = [];
      for (const [file, stamp] of files) {
        if (!gitSafe(file)) continue;
        const staged = this.indexed.get(file);
        if (!staged || !sameStamp(staged, stamp) || stamp.mtimeMs >= this.stagedAt - RACY_MS) changed.push(file);
      }
      const gone = [...this.indexed.keys()].filter((file) => !files.has(file));
      if (this.lastTree && changed.length === 0 && gone.length === 0) return this.lastTree;
      if (gone.length > 0) await this.check(['update-index', '--force-remove', '-z', '--stdin'], gone.join('\0'));
      if (changed.length > 0) await this.check(['update-index', '--add', '--remove', '-z', '--stdin'], changed.join('\0'));
      for (const file of gone) this.indexed.delete(file);
      for (const file of changed) this.indexed.set(file, files.get(file)!);
      this.stagedAt = Date.now();
      const tree = await this.check(['write-tree']);
      this.lastTree = tree.stdout.toString('utf8').trim();
      return this.lastTree;
    });
  }

  /** The contents of `paths` in `tree`; paths not in it are left out. */
  readFiles(tree: string, paths: readonly string[]): Promise<Map<string, Buffer>> {
    return this.serial(async () => {
      const found = new Map<string, Buffer>();
      const asked = paths.filter(gitSafe);
      if (asked.length === 0) return found;
      const result = await this.check(['cat-file', '--batch'], asked.map((p) => `${tree}:${p}\n`).join(''));
      const out = result.stdout;
      let at = 0;
      for (const file of asked) {
        const newline = out.indexOf(10, at);
        if (newline < 0) break;
        const header = out.toString('utf8', at, newline);
        at = newline + 1;
        const match = /^[0-9a-f]+ (\w+) (\d+)$/.exec(header);
        if (!match) continue; // "<name> missing": not in the tree
        const size = Number(match[2]);
        if (match[1] === 'blob') found.set(file, out.subarray(at, at + size));
        at += size + 1;
      }
      return found;
    });
  }

  private async check(args: string[], input?: string): Promise<GitResult> {
    const result = await this.run(args, input);
    if (result.code !== 0)
      throw new ShadowGitError(`git ${args[0]} in the checkpoint repository failed (exit ${result.code}): ${result.stderr.trim().slice(0, 500)}`);
    return result;
  }

  /** Deletes the shadow repository (its contents were copied into the content store as needed). */
  async dispose(): Promise<void> {
    await this.serial(() => rm(this.gitDir, { recursive: true, force: true }));
  }
}

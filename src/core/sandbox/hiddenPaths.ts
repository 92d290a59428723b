import { realpath, stat } from 'node:fs/promises';
import { userInfo } from 'node:os';
import path from 'node:path';

// What a sandboxed command may not read in the home folder. The home stays visible (read-only) so
// toolchains installed there (nvm, volta, pyenv, rustup, ~/.local/bin) work as they do in the
// user's terminal; the places where credentials, keys, shell histories and browser or keychain
// data live are covered instead: an empty in-memory folder over a folder (what is written there
// vanishes with the sandbox), /dev/null over a file (reads as empty, so a tool that reads its
// ~/.npmrc still starts).
// The list follows what Anthropic's sandbox-runtime and Codex hide; `cortex.sandbox.hiddenPaths`
// adds more (machine scope: a workspace cannot shorten the list, only the user adds to it).

/** Home-relative places hidden from every sandboxed command. */
export const DEFAULT_HIDDEN_HOME_PATHS: readonly string[] = Object.freeze([
  // keys and cloud or cluster credentials
  '.ssh',
  '.gnupg',
  '.aws',
  '.azure',
  '.config/gcloud',
  '.kube',
  '.docker/config.json',
  '.config/gh',
  '.config/hub',
  '.config/op',
  '.password-store',
  '.vault-token',
  '.terraform.d/credentials.tfrc.json',
  '.cargo/credentials',
  '.cargo/credentials.toml',
  '.m2/settings.xml',
  '.gradle/gradle.properties',
  '.netrc',
  '.npmrc',
  '.yarnrc.yml',
  '.pypirc',
  '.pgpass',
  '.my.cnf',
  '.git-credentials',
  '.config/git/credentials',
  '.s3cfg',
  '.boto',
  '.config/rclone',
  // shell and REPL histories
  '.bash_history',
  '.zsh_history',
  '.zhistory',
  '.histfile',
  '.local/share/fish',
  '.python_history',
  '.node_repl_history',
  '.psql_history',
  '.mysql_history',
  '.sqlite_history',
  '.lesshst',
  '.viminfo',
  // browsers, keychains, editors' stored state (Cortex's own memory included)
  '.mozilla',
  '.thunderbird',
  '.config/google-chrome',
  '.config/chromium',
  '.config/BraveSoftware',
  '.config/microsoft-edge',
  '.config/vivaldi',
  '.config/opera',
  '.local/share/keyrings',
  '.config/Code',
  '.config/Code - Insiders',
  '.config/VSCodium',
  '.vscode-server/data',
  '.cache/cortex',
  'Library/Keychains',
]);

/** A place to cover: its real path (symbolic links followed) and whether it is a folder. */
export interface HiddenPath {
  path: string;
  folder: boolean;
}

function expand(entry: string, homes: readonly string[]): string[] {
  if (entry.startsWith('~/')) return homes.map((home) => path.join(home, entry.slice(2)));
  return path.isAbsolute(entry) ? [entry] : [];
}

/**
 * The home folders whose secrets are covered: $HOME (what the command's tools use) and the
 * account's home from the password database, when HOME points elsewhere.
 */
export function homeFolders(env: NodeJS.ProcessEnv = process.env): string[] {
  let account: string | undefined;
  try {
    account = userInfo().homedir;
  } catch {
    // no password database entry (some containers)
  }
  return [...new Set([env.HOME, account].filter((home): home is string => !!home && path.isAbsolute(home) && home !== '/'))];
}

/**
 * The places that exist on this machine, resolved. A missing place needs no cover: under the
 * read-only home nothing can create it. Checked when the command starts, so a key added since is
 * covered too.
 */
export async function existingHiddenPaths(homes: readonly string[], extra: readonly string[] = []): Promise<HiddenPath[]> {
  const places = [...DEFAULT_HIDDEN_HOME_PATHS.map((entry) => `~/${entry}`), ...extra].flatMap((entry) => expand(entry, homes));
  // Looked up together: a home on a network disk answers each in a round trip.
  const looked = await Promise.all(
    places.map(async (place): Promise<HiddenPath | undefined> => {
      try {
        const real = await realpath(place);
        return real === '/' ? undefined : { path: real, folder: (await stat(real)).isDirectory() };
      } catch {
        return undefined; // missing, or a dangling link: nothing to read there
      }
    }),
  );
  const found = new Map<string, HiddenPath>();
  for (const place of looked) if (place) found.set(place.path, place);
  return [...found.values()];
}

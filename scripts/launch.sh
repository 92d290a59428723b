#!/usr/bin/env bash
# `npm start`: set up and launch Cortex in one command.
#   1. npm ci if node_modules is missing or older than package-lock.json
#   2. package the extension (cortex.vsix)
#   3. `code` on PATH: install the .vsix there and open this folder (or $1) in a new window.
#      Otherwise: provision code-server (VS Code in the browser, ~600 MB, cached in
#      ${CORTEX_CACHE:-~/.cache/cortex}/code-server), install the .vsix into a local profile
#      (${CORTEX_PROFILE:-$CORTEX_CACHE/vscode-profile}) and serve VS Code on http://127.0.0.1:$PORT.
# Environment: PORT (default 8080), CORTEX_CACHE, CORTEX_PROFILE, CORTEX_USE_CODE_SERVER=1 to prefer
# code-server even if `code` exists.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
folder="${1:-$root}"

if [[ ! -d node_modules || package-lock.json -nt node_modules/.package-lock.json ]]; then
  echo "launch: installing dependencies (npm ci)…"
  npm ci --no-audit --no-fund
fi

echo "launch: packaging the extension…"
sh scripts/node24.sh scripts/package.mjs
vsix="$root/cortex.vsix"

if [[ "${CORTEX_USE_CODE_SERVER:-0}" != "1" ]] && command -v code >/dev/null 2>&1; then
  echo "launch: installing $vsix into VS Code…"
  code --install-extension "$vsix" --force
  code --new-window "$folder"
  echo "launch: opened $folder in VS Code. Run \"Cortex: Run agent task\" from the command palette (F1)."
  exit 0
fi

echo "launch: \`code\` is not on PATH; using code-server (VS Code in the browser)."
node scripts/ensureCodeServer.mjs >/dev/null
node24="$(node --input-type=module -e "import { node24Path } from '$root/scripts/ensureCodeServer.mjs'; console.log(node24Path())")"
entry="$(node --input-type=module -e "import { codeServerEntry } from '$root/scripts/ensureCodeServer.mjs'; console.log(codeServerEntry())")"
profile="${CORTEX_PROFILE:-${CORTEX_CACHE:-$HOME/.cache/cortex}/vscode-profile}"
mkdir -p "$profile/user-data/User" "$profile/extensions"
[[ -f "$profile/user-data/User/settings.json" ]] || echo '{ "workbench.startupEditor": "none" }' > "$profile/user-data/User/settings.json"
printf 'auth: none\n' > "$profile/code-server.yaml"
"$node24" "$entry" --config "$profile/code-server.yaml" --user-data-dir "$profile/user-data" --extensions-dir "$profile/extensions" --install-extension "$vsix" --force
port="${PORT:-8080}"
# This checkout is the user's own, opened by their own command: open it trusted (Restricted Mode
# would make the agent read-only). Any other folder keeps VS Code's trust prompt.
trust=()
if [[ "$(cd "$folder" && pwd -P)" == "$(cd "$root" && pwd -P)" ]]; then
  trust=(--disable-workspace-trust)
fi
echo
echo "launch: open http://127.0.0.1:$port/?folder=$folder"
if ((${#trust[@]} == 0)); then
  echo "        $folder opens in Restricted Mode until you trust it (the agent is read-only there):"
  echo "        F1 → \"Workspaces: Manage Workspace Trust\" → Trust."
fi
echo "        then F1 → \"Cortex: Run agent task\". Settings: F1 → \"Preferences: Open Settings\" → search cortex."
echo "        (security settings cortex.policy.* are machine-scoped: set them in the Remote [code-server] tab)"
echo "        Ctrl+C stops the server."
exec "$node24" "$entry" --config "$profile/code-server.yaml" --bind-addr "127.0.0.1:$port" --auth none \
  --disable-telemetry --disable-update-check --disable-getting-started-override "${trust[@]}" \
  --user-data-dir "$profile/user-data" --extensions-dir "$profile/extensions" "$folder"

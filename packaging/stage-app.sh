#!/usr/bin/env bash
# Stages the daemon as it is installed: dist/ compiled from src/ with the package version
# written in, the built dashboard (dist/web), package.json, and production node_modules from `npm ci --omit=dev`
# (better-sqlite3 compiled for this machine's arch and Node ABI).
# Usage: stage-app.sh VERSION STAGE_DIR
set -euo pipefail
# Modes of what is packed must not depend on the caller's umask (a test runner may hold 077).
umask 022

version=${1:?usage: stage-app.sh VERSION STAGE_DIR}
stage=${2:?usage: stage-app.sh VERSION STAGE_DIR}
root=$(cd "$(dirname "$0")/.." && pwd)

# Keeps only the compiled addon of better-sqlite3: its sources, objects and test extension
# are build leftovers.
trim_better_sqlite3() {
  local bs=$1
  test -f "$bs/build/Release/better_sqlite3.node"
  find "$bs/build" -mindepth 1 -maxdepth 1 ! -name Release -exec rm -rf {} +
  find "$bs/build/Release" -mindepth 1 ! -name better_sqlite3.node -exec rm -rf {} +
  rm -rf "$bs/deps" "$bs/src" "$bs/binding.gyp"
  "${STRIP:-strip}" --strip-unneeded "$bs/build/Release/better_sqlite3.node"
  find "$(dirname "$bs")" -name '*.map' -delete
}

rm -rf "$stage"
mkdir -p "$stage"
cp -r "$root/src" "$stage/src"
cp "$root/package.json" "$root/package-lock.json" "$stage/"
V="$version" node -e '
  const fs = require("fs");
  for (const f of process.argv.slice(1)) {
    const j = JSON.parse(fs.readFileSync(f, "utf8"));
    j.version = process.env.V;
    if (j.packages && j.packages[""]) j.packages[""].version = process.env.V;
    fs.writeFileSync(f, JSON.stringify(j, null, 2) + "\n");
  }' "$stage/package.json" "$stage/package-lock.json"

# Only src/ (tests and benchmarks stay out). The stage lies inside the repository so that
# the type packages resolve from its node_modules.
case "$stage" in "$root"/*) ;; *) echo "stage-app.sh: STAGE_DIR must be inside $root" >&2; exit 2 ;; esac
cat >"$stage/tsconfig.json" <<JSON
{
  "extends": "$root/tsconfig.json",
  "compilerOptions": { "rootDir": ".", "outDir": "dist", "incremental": false, "tsBuildInfoFile": null },
  "include": ["src/**/*.ts"]
}
JSON
"$root/node_modules/.bin/tsc" -p "$stage/tsconfig.json"
rm -rf "$stage/src" "$stage/tsconfig.json"

# The dashboard: built on this host with the dev dependencies (its files are the same for
# every target), shipped as dist/web beside dist/src, where wgcpd looks for it.
node "$root/web/build.mjs" --if-stale >&2
mkdir -p "$stage/dist/web"
cp -a "$root/dist/web/." "$stage/dist/web/"
rm -f "$stage/dist/web/build-info.json"

# The production node_modules depend only on the lockfile, the Node ABI and the arch, so a
# second build (another version number) reuses them instead of compiling better-sqlite3 again.
# A cross build (OpenWrt's feed Makefile) names the target in npm_config_arch and
# npm_config_nodedir, and the compiler in CC/CXX; STRIP is the target's strip.
abi=$(node -p 'process.versions.modules + "-" + (process.env.npm_config_arch || process.arch)')
key=$(sha256sum <"$root/package-lock.json" | cut -c1-16)
cache="$root/dist/pkgbuild/cache/node_modules-$abi-$key"
if [ ! -d "$cache" ]; then
  (cd "$stage" && npm ci --omit=dev --no-audit --no-fund --loglevel=error >&2)
  rm -f "$stage/node_modules/.package-lock.json"
  trim_better_sqlite3 "$stage/node_modules/better-sqlite3"
  mkdir -p "$(dirname "$cache")"
  cp -a "$stage/node_modules" "$cache.tmp-$$"
  # Another build may have filled the cache meanwhile: then its copy stays.
  mv -T "$cache.tmp-$$" "$cache" 2>/dev/null || rm -rf "$cache.tmp-$$"
else
  cp -a "$cache" "$stage/node_modules"
fi
rm -f "$stage/package-lock.json"
# npm's own leftovers (.bin links, .npmignore, .eslintrc) are not needed at run time.
rm -rf "$stage/node_modules/.bin"
find "$stage/node_modules" -name '.*' -prune -exec rm -rf {} +
find "$stage/node_modules" \( -name coverage -o -name test -o -name "*.d.ts" -o -name "*.md" ! -iname "license*" \) -prune -exec rm -rf {} +
# Folders 0755, plain files 0644; scripts with a #! line stay runnable, as npm installed them.
find "$stage" -type d -exec chmod 0755 {} +
find "$stage" -type f -exec chmod 0644 {} +
find "$stage" -type f -name '*.js' -o -type f -path '*/bin/*' | while read -r f; do
  if [ "$(head -c 2 "$f")" = '#!' ]; then chmod 0755 "$f"; fi
done

// Compiles the daemon, the CLI, the tests and the benchmarks (tsc) into dist/.
//
//   node build.mjs             compile
//   node build.mjs --if-stale  compile only when a source changed since the last compile
//
// `npm start` uses --if-stale: tsc takes about 15 s on a router-sized machine even when
// nothing changed, a stat of each source takes milliseconds. Stale means: a file under src/,
// test/ or bench/, tsconfig.json or package.json (its version is compiled in) is newer than
// the stamp the last successful compile left, or the stamp or the daemon's entry is missing.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(fileURLToPath(import.meta.url));
const stamp = path.join(root, 'dist', '.build-stamp');
const SOURCES = ['src', 'test', 'bench'];
const FILES = ['tsconfig.json', 'package.json'];

/** The newest modification time (ms) of the compiler's inputs. */
function newestInput() {
  let newest = 0;
  const walk = (dir) => {
    // A folder's own time changes when a file in it is added, removed or renamed.
    newest = Math.max(newest, fs.statSync(dir).mtimeMs);
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else newest = Math.max(newest, fs.statSync(p).mtimeMs);
    }
  };
  for (const d of SOURCES) if (fs.existsSync(path.join(root, d))) walk(path.join(root, d));
  for (const f of FILES) newest = Math.max(newest, fs.statSync(path.join(root, f)).mtimeMs);
  return newest;
}

export function isStale() {
  let built;
  try {
    built = fs.statSync(stamp).mtimeMs;
    fs.statSync(path.join(root, 'dist', 'src', 'main.js'));
  } catch {
    return true;
  }
  return newestInput() > built;
}

function compile() {
  // The stamp takes the time the compile began: a file saved while tsc runs is newer, and
  // the next run compiles again.
  const began = new Date();
  execFileSync(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', path.join(root, 'tsconfig.json')], { stdio: 'inherit' });
  fs.writeFileSync(stamp, '');
  fs.utimesSync(stamp, began, began);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--if-stale') && !isStale()) {
    console.error('dist/ is up to date with the sources: not compiled');
  } else {
    console.error('compiling the daemon (tsc)…');
    compile();
  }
}

// V8 sizes its heap from the machine's memory. On a large machine it lets the young
// generation grow to two 16 MB semi-spaces and the old one to several times its live data
// before collecting: 140 MB of RSS under steady churn at 10,000 peers, where a router has
// 256 to 512 MB for everything. The daemon asks for what V8 gives small devices instead
// (bench/RESULTS.md: RSS and change times with and without). Imported for this effect, first
// thing in src/main.ts (the daemon only, not the CLI), before the other modules load.
import v8 from 'node:v8';

// Both are read by V8 as it runs, so they work after start-up (the size limits are read
// only at start, from the command line). A growth factor of 1 keeps the first 1 MB
// semi-space; optimize-for-size grows the old generation little past its live data.
v8.setFlagsFromString('--semi-space-growth-factor=1');
v8.setFlagsFromString('--optimize-for-size');

// Start-up runs its code once, but it makes a few functions (the module loader's path
// helpers, Node's argument validators) hot enough for TurboFan, and the first optimization
// brings the optimizing compiler's code and memory in: about 4-5 MB of RSS an idle daemon
// keeps for nothing (docs/performance.md). So the optimizer is off while the daemon starts;
// main.ts turns it on once it listens, and hot code is optimized as before from then on.
// Not when the command line turned TurboFan off itself: that choice stays.
const optimizerOffByUser = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].some((a) => a === '--no-opt' || a === '--no-turbofan');
if (!optimizerOffByUser) v8.setFlagsFromString('--no-turbofan');

/** After start-up: hot code is optimized again as usual. */
export function startedUp(): void {
  if (!optimizerOffByUser) v8.setFlagsFromString('--turbofan');
}

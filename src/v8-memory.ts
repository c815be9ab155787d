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

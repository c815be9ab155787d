// V8 sizes its young generation from the machine's memory: on a large machine it grows to
// two 16 MB semi-spaces under load, 32 MB of RSS that a router cannot spare. The daemon's
// garbage is small and short-lived, so it keeps the first 1 MB semi-space everywhere
// (bench/RESULTS.md: RSS and change times with and without it).
// Imported for this effect, first thing in src/main.ts (the daemon only, not the CLI).
import v8 from 'node:v8';

// V8 reads this each time it would grow the semi-space, so it works after start-up (the
// size limits are read only at start, from the command line); 1 means never grow.
v8.setFlagsFromString('--semi-space-growth-factor=1');

// The package version, reported by `wgcp --version` and /healthz.
import pkg from '../package.json';

export const VERSION: string = pkg.version;

// A tiny argv reader: positional words and --name value / --flag options. The flags below
// never take a value, so `wgcp --json apikey list` keeps `apikey` a word.
export interface Args { words: string[]; options: Map<string, string | true> }

const FLAGS = new Set(['help', 'json', 'version', 'force', 'dry-run']);

export function parseArgs(argv: string[]): Args {
  const words: string[] = [];
  const options = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      if (eq > 0) options.set(a.slice(2, eq), a.slice(eq + 1));
      else if (!FLAGS.has(a.slice(2)) && i + 1 < argv.length && !argv[i + 1].startsWith('--')) options.set(a.slice(2), argv[++i]);
      else options.set(a.slice(2), true);
    } else {
      words.push(a);
    }
  }
  return { words, options };
}

export class UsageError extends Error {}

export function stringOption(args: Args, name: string): string | undefined {
  const v = args.options.get(name);
  if (v === true) throw new UsageError(`--${name} needs a value`);
  return v;
}

/** True when --json was given: the command prints JSON for scripts instead of a table. */
export const wantsJson = (args: Args): boolean => args.options.get('json') === true;

// Kernel tools seen as the daemon runs them: a folder of wrappers put first on the daemon's
// PATH, each of which appends one line a call (the tool and its arguments, never stdin, so
// no secret) to a log and then runs the real tool. With `tableAtUp`, a call that gives a link
// peers or sets it up also records, at that moment, what the `inet wgcp` table's `tunnels`
// set holds: the kernel's own state, read before the call takes effect.
import fs from 'node:fs';
import path from 'node:path';
import { sh } from './netns';
import { tempDir } from './daemon';

export interface ToolCall { tool: string; args: string; tunnels: string | null }

export interface ToolLog {
  /** Put first on the daemon's PATH. */
  dir: string;
  calls(): ToolCall[];
  /** The calls after the first `skip` (a mark taken before an action). */
  since(skip: number): ToolCall[];
  remove(): void;
}

const realPath = (tool: string): string => sh('sh', ['-c', `command -v ${tool}`]).trim();

export function toolLog(tools: string[], opts: { tableAtUp?: boolean } = {}): ToolLog {
  const dir = tempDir('wgcp-tools-');
  const log = path.join(dir, 'calls.log');
  fs.writeFileSync(log, '');
  const nft = realPath('nft');
  for (const tool of tools) {
    const real = realPath(tool);
    const probe = opts.tableAtUp
      ? `case " $* " in *" syncconf "*|*" setconf "*|*" addconf "*|*" link set "*" up "*|*" set "*" peer "*) ` +
        `state="tunnels=$(${nft} list set inet wgcp tunnels 2>/dev/null | tr '\\n\\t' '  ' || true)";; esac\n`
      : '';
    const script = `#!/bin/sh\nstate=-\n${probe}printf '%s\\t%s\\t%s\\n' '${tool}' "$*" "$state" >> '${log}'\nexec '${real}' "$@"\n`;
    fs.writeFileSync(path.join(dir, tool), script, { mode: 0o755 });
  }
  const calls = (): ToolCall[] => fs.readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => {
    const [tool, args, state] = l.split('\t');
    return { tool, args, tunnels: state === '-' ? null : state.replace(/^tunnels=/, '') };
  });
  return { dir, calls, since: (skip) => calls().slice(skip), remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

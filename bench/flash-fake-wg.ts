// Traffic for the flash bench: a `wg` put first on the daemon's PATH that runs the real one
// and, for `wg show <if> dump`, adds to every peer's byte counters what it would have moved
// by now (a few kB a peer a minute, all peers active) and a handshake every 2 minutes, as
// wireguard-go would show them for 10,000 busy tunnels. Everything else is the real wg.
// The counters stop growing while the file `frozen` exists in its folder (a phase without traffic).
import fs from 'node:fs';
import path from 'node:path';

export function writeFakeWg(dir: string, realWg: string): string {
  fs.mkdirSync(dir, { recursive: true });
  const script = `#!/bin/sh
if [ "$1" = show ] && [ "$3" = dump ]; then
  now=$(date +%s)
  if [ -f "${dir}/frozen" ]; then now=$(cat "${dir}/frozen"); fi
  start=$(cat "${dir}/start")
  "${realWg}" "$@" | awk -v t=$((now - start)) -v now="$now" 'BEGIN { OFS = "\\t" }
    NR == 1 { print; next }
    { m = int(t / 60); $5 = now - (now % 120); $6 = $6 + m * (3000 + NR % 977) + NR; $7 = $7 + m * (1500 + NR % 499) + NR; print }'
  exit 0
fi
exec "${realWg}" "$@"
`;
  const file = path.join(dir, 'wg');
  fs.writeFileSync(file, script, { mode: 0o755 });
  fs.writeFileSync(path.join(dir, 'start'), String(Math.floor(Date.now() / 1000)));
  return dir;
}

export function freezeTraffic(dir: string, frozen: boolean): void {
  const file = path.join(dir, 'frozen');
  if (frozen) fs.writeFileSync(file, String(Math.floor(Date.now() / 1000)));
  else fs.rmSync(file, { force: true });
}

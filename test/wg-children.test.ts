// wireguard-go runs as wgcpd's child: when wgcpd dies without cleaning up (SIGKILL, the OOM
// killer, a crash), its tunnels must not go on serving, reparented to init, with nobody
// applying the database to them.
import fs from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { canRunAsRoot } from './helpers/root';
import { Netns } from './helpers/netns';
import { startNsDaemon, type NsDaemon } from './helpers/ns-daemon';
import { eventually } from './helpers/receiver';

const t = suite('wireguard-go ends with wgcpd');

const w = {} as { router: Netns; daemon: NsDaemon };

/** The pids of `pid`'s children whose program is wireguard-go. */
function wireguardGoChildren(pid: number): number[] {
  const children = fs.readdirSync(`/proc/${pid}/task`).flatMap((task) => fs.readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number));
  return children.filter((c) => {
    try {
      return fs.readFileSync(`/proc/${c}/comm`, 'utf8').trim() === 'wireguard-go';
    } catch {
      return false;
    }
  });
}

const alive = (pid: number): boolean => {
  try {
    // A zombie is dead too: its parent (init, here) has not reaped it yet.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false;
  }
};

if (canRunAsRoot('wireguard-go ends with wgcpd')) {
  t.before(async () => {
    w.router = new Netns('wgchild');
    w.daemon = await startNsDaemon(w.router);
  });
  t.after(async () => {
    await w.daemon?.stop();
    w.router?.destroy();
  });

  t('a SIGKILLed wgcpd takes its wireguard-go processes with it', async () => {
    for (const [name, port] of [['one', 51871], ['two', 51872]] as const) {
      const res = await w.daemon.api('POST', '/api/servers', { name, endpoint: `192.0.2.1:${port}`, mode: 'forward' });
      assert.is(res.status, 201, res.text);
    }
    const children = wireguardGoChildren(w.daemon.pid);
    assert.is(children.length, 2, 'one wireguard-go a server, children of wgcpd');
    process.kill(w.daemon.pid, 'SIGKILL');
    await w.daemon.stop();
    await eventually('wireguard-go ended', () => (children.some(alive) ? undefined : true));
  });
}

t.run();

// The simulated devices of the soak as a process of their own, started inside the daemon's
// namespace: provisions COUNT devices through the daemon on 127.0.0.1:PORT (tokens with the
// API key), then heartbeats each every INTERVAL_S with ±10 % jitter, and prints one JSON line
// of figures a second. SIGTERM stops the beats and prints the last line.
//   node dist/bench/soak-sim.js PORT KEY SALT SERVER_ID COUNT INTERVAL_S [PREFIX]
import { Client } from './scale-http';
import { HeartbeatFleet } from './soak-devices';

const [port, key, salt, serverId, count, intervalS, prefix = 'soak'] = process.argv.slice(2);

async function main(): Promise<void> {
  const client = new Client(Number(port), key);
  const fleet = new HeartbeatFleet(Number(port), client, Number(serverId), salt);
  await fleet.provision(Number(count), undefined, prefix);
  const figures = () => ({
    devices: fleet.ids.length, beats: fleet.beats.count, lost: fleet.lost,
    retried: fleet.retried, retriedLastOkAt: fleet.retriedLastOkAt, statuses: Object.fromEntries(fleet.statuses), networkErrors: Object.fromEntries(fleet.networkErrors), p50: fleet.beats.median, p99: fleet.beats.quantile(0.99), max: fleet.beats.max,
    // The oldest "last answered" among the devices: every device was answered since then.
    oldestOk: fleet.ids.length ? Math.min(...fleet.ids.map((id) => fleet.lastOk.get(id) ?? 0)) : 0,
  });
  process.stdout.write(JSON.stringify({ provisioned: fleet.ids.length }) + '\n');
  fleet.startBeating(Number(intervalS) * 1000);
  const timer = setInterval(() => process.stdout.write(JSON.stringify(figures()) + '\n'), 1000);
  process.once('SIGTERM', async () => {
    clearInterval(timer);
    await fleet.stopBeating();
    process.stdout.write(JSON.stringify({ ...figures(), final: true }) + '\n');
    fleet.close();
    client.close();
    process.exit(0);
  });
}

main().catch((err) => { process.stderr.write(`soak-sim: ${(err as Error).message}\n`); process.exit(1); });

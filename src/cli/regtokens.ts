// `wgcp regtoken create --server N | list [--server N] | revoke TOKEN`: registration tokens
// for devices, in the daemon's database. A new token is printed alone on stdout.
import type { Store } from '../store/store';
import { createRegToken, revokeRegToken } from '../ops/regtokens';
import { cliRunner } from '../ops/cli-runner';
import { CLI_ACTOR } from '../ops/runner';
import { KernelOff } from '../kernel/plane';
import { presentRegToken } from '../views/devices-present';
import { UsageError, stringOption, wantsJson, type Args } from './args';
import { renderTable, shortTime } from './table';
import { regTokenStateAt } from '../resources/regtoken';

export const REGTOKEN_USAGE = 'usage: wgcp regtoken create --server ID | list [--server ID] | revoke TOKEN';

function serverOption(args: Args, store: Store, needed: boolean): number | undefined {
  const text = stringOption(args, 'server');
  if (text === undefined) {
    if (needed) throw new UsageError(`--server ID is required\n${REGTOKEN_USAGE}`);
    return undefined;
  }
  if (!/^[1-9]\d{0,15}$/.test(text) || !store.servers.get(Number(text))) throw new UsageError(`no server with id ${text}`);
  return Number(text);
}

export async function runRegTokenCommand(args: Args, store: Store, out: (s: string) => void, now: Date = new Date()): Promise<void> {
  const [, verb, arg] = args.words;
  const runner = cliRunner(store, new KernelOff('the CLI stores; wgcpd applies'));
  const actor = { ...CLI_ACTOR, name: 'wgcp regtoken' };
  switch (verb) {
    case 'create': {
      const token = await createRegToken(runner, serverOption(args, store, true)!, now, { actor });
      out(wantsJson(args) ? JSON.stringify(presentRegToken(token, now.toISOString(), undefined), null, 2) + '\n' : token.token + '\n');
      return;
    }
    case 'list': {
      const server = serverOption(args, store, false);
      const rows = server === undefined ? store.regTokens.list() : store.regTokens.listByServer(server);
      const listed = rows.map((t) => presentRegToken(t, now.toISOString(), t.deviceId === null ? undefined : store.devices.get(t.deviceId)));
      if (wantsJson(args)) out(JSON.stringify(listed, null, 2) + '\n');
      else if (listed.length === 0) out('no registration tokens\n');
      else out(renderTable(['TOKEN', 'SERVER', 'STATE', 'CREATED', 'EXPIRES', 'USED', 'DEVICE'],
        rows.map((t, i) => [t.token, t.serverId, regTokenStateAt(t, now.toISOString()), shortTime(t.createdAt), shortTime(t.expiresAt), shortTime(t.usedAt), listed[i].deviceID as number | null]), [1]));
      return;
    }
    case 'revoke': {
      if (!arg) throw new UsageError(REGTOKEN_USAGE);
      if (!await revokeRegToken(runner, arg, { actor })) throw new UsageError(`no registration token ${arg}`);
      out('revoked the registration token\n');
      return;
    }
    default:
      throw new UsageError(REGTOKEN_USAGE);
  }
}

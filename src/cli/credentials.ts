// `wgcp apikey …` and `wgcp token …`: make, list and revoke control-plane credentials in
// the daemon's database. A new secret is printed once, on stdout alone.
import type { CredentialKind } from '../store/credentials';
import type { Store } from '../store/store';
import { createCredential, listCredentials, revokeCredential } from '../ops/credentials';
import { nameProblem } from '../ops/name-rule';
import { UsageError, stringOption, wantsJson, type Args } from './args';
import { renderTable, shortTime } from './table';
import type { CredentialInfo } from '../store/credentials';
import { isRole, type Role } from '../store/roles';
import { setCredentialRole } from '../ops/credential-roles';
import { cliRunner } from '../ops/cli-runner';
import { CLI_ACTOR } from '../ops/runner';
import { KernelOff } from '../kernel/plane';

function roleArg(text: string | undefined): Role {
  if (!isRole(text)) throw new UsageError('the role must be admin, operator or viewer');
  return text;
}

/** The list for people; `--json` gives the same records as the API. */
function credentialTable(kind: CredentialKind, listed: CredentialInfo[]): string {
  if (listed.length === 0) return `no ${kind === 'apikey' ? 'API keys' : 'access tokens'}\n`;
  const tokens = kind === 'token';
  const header = ['ID', 'NAME', 'ROLE', 'CREATED', 'LAST USED', ...(tokens ? ['EXPIRES'] : [])];
  return renderTable(header, listed.map((c) => [c.id, c.name, c.role, shortTime(c.createdAt), shortTime(c.lastUsedAt), ...(tokens ? [shortTime(c.expiresAt) ?? 'never'] : [])]), [0]);
}

export async function runCredentialCommand(kind: CredentialKind, args: Args, store: Store, out: (s: string) => void): Promise<void> {
  const runner = cliRunner(store, new KernelOff('the CLI stores; wgcpd applies'));
  const actor = { ...CLI_ACTOR, name: `wgcp ${kind}` };
  const [, verb, arg] = args.words;
  const now = new Date();
  switch (verb) {
    case 'create': {
      const name = stringOption(args, 'name') ?? `${kind}-${now.toISOString()}`;
      const refused = name.length > 64 ? 'must be at most 64 characters' : nameProblem(name);
      if (refused) throw new UsageError(`--name ${refused}`);
      let expiresInDays: number | null = null;
      const days = stringOption(args, 'expires-in-days');
      if (days !== undefined) {
        if (kind !== 'token') throw new UsageError('--expires-in-days is for access tokens');
        if (!/^\d{1,5}$/.test(days) || Number(days) < 1) throw new UsageError('--expires-in-days must be a whole number of days, at least 1');
        expiresInDays = Number(days);
      }
      const role = roleArg(stringOption(args, 'role') ?? 'admin');
      const made = await createCredential(runner, kind, name, now, expiresInDays, role, { actor });
      out(wantsJson(args) ? JSON.stringify(made, null, 2) + '\n' : made.secret + '\n');
      return;
    }
    case 'list': {
      const listed = listCredentials(store, kind);
      out(wantsJson(args) ? JSON.stringify(listed, null, 2) + '\n' : credentialTable(kind, listed));
      return;
    }
    case 'role': {
      const role = args.words[3];
      if (!arg || !/^\d+$/.test(arg) || role === undefined) throw new UsageError(`usage: wgcp ${kind} role ID admin|operator|viewer`);
      const changed = await setCredentialRole(runner, actor, kind, Number(arg), roleArg(role), now);
      if (changed === null) throw new UsageError(`no ${kind} with id ${arg}`);
      out(`${kind} ${arg} is now ${role}\n`);
      return;
    }
    case 'revoke': {
      if (!arg || !/^\d+$/.test(arg)) throw new UsageError(`usage: wgcp ${kind} revoke ID`);
      if (!await revokeCredential(runner, kind, Number(arg), now, { actor })) throw new UsageError(`no ${kind} with id ${arg}`);
      out(`revoked ${kind} ${arg}\n`);
      return;
    }
    default:
      throw new UsageError(`usage: wgcp ${kind} create [--name NAME] [--role admin|operator|viewer]${kind === 'token' ? ' [--expires-in-days N]' : ''} | list | role ID ROLE | revoke ID`);
  }
}

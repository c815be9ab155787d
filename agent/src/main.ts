// wgcp-agent run --config FILE | status --config FILE. `run` stays in the foreground (for
// systemd and procd) until SIGTERM or SIGINT.
import { Agent } from './agent';
import { systemClock } from './clock';
import { ConfigError, loadConfigFile, statusConfig } from './config';
import { claim, release } from './lock';
import { createLogger } from './log';
import { ensureStateDir } from './persist';
import { statusReport } from './status';
import { serveStatus } from './status-socket';
import { WgTunnel } from './tunnel';
import { VERSION } from './version';

const USAGE = 'usage: wgcp-agent run --config FILE\n       wgcp-agent status --config FILE\n       wgcp-agent --version\n';

function configArg(args: string[]): string {
  const i = args.indexOf('--config');
  const file = i >= 0 ? args[i + 1] : undefined;
  const unknown = args.filter((a, j) => j !== i && j !== i + 1);
  if (!file || unknown.length) throw new ConfigError(unknown.length ? `unknown argument ${unknown[0]}` : '--config FILE is required');
  return file;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === '--version') { process.stdout.write(`${VERSION}\n`); return 0; }
  if (command !== 'run' && command !== 'status') { process.stderr.write(USAGE); return command === '--help' ? 0 : 2; }
  const file = configArg(rest);
  if (command === 'status') {
    const { stateDir, problem } = statusConfig(file);
    const report = await statusReport(stateDir);
    process.stdout.write(JSON.stringify(problem === null ? report : { ...report, config_problem: problem }) + '\n');
    return 0;
  }
  const config = loadConfigFile(file);
  ensureStateDir(config.state_dir);
  claim(config.state_dir);
  const log = createLogger(undefined, process.env.WGCP_AGENT_DEBUG === '1');
  const agent = new Agent({ configFile: file, config, log, clock: systemClock, makeTunnel: (c) => new WgTunnel(c.interface, log) });
  for (const sig of ['SIGTERM', 'SIGINT'] as const) process.on(sig, () => agent.stop());
  const status = await serveStatus(config.state_dir, () => agent.snapshot).catch((err: Error) => {
    log.warn('status cannot ask this agent (its socket could not be made): it reads the state file', { error: err.message });
    return null;
  });
  try {
    await agent.run();
  } finally {
    await status?.close();
    release(config.state_dir);
  }
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`wgcp-agent: ${(err as Error).message}\n`);
    process.exit(err instanceof ConfigError ? 2 : 1);
  },
);

// The change runner of a `wgcp` command working on the data folder without a daemon: the
// same runner and the same operations, a kernel plane that applies nothing (the daemon
// applies what it finds at its next start) and no live consumers of the events (their
// outbox rows wait in the file for the daemon).
import { EventBus } from '../events/bus';
import type { KernelPlane } from '../kernel/plane';
import { createLogger } from '../log';
import type { Store } from '../store/store';
import { ChangeRunner } from './runner';

export function cliRunner(store: Store, kernel: KernelPlane): ChangeRunner {
  const log = createLogger('warn');
  return new ChangeRunner(store, kernel, new EventBus(log), log);
}

// What every api module and job is handed: the store (to read), the change runner (the
// only way to change anything), the kernel seam, the event bus, the logger, the
// configuration and the clock (injectable for tests).
import type { Config } from './config';
import type { EventBus } from './events/bus';
import type { KernelPlane } from './kernel/plane';
import type { Logger } from './log';
import type { Store } from './store/store';
import type { ChangeRunner } from './ops/runner';

export interface App {
  config: Config;
  store: Store;
  kernel: KernelPlane;
  events: EventBus;
  runner: ChangeRunner;
  log: Logger;
  now(): Date;
}

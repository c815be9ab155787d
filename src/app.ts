// What every api module and job is handed: the store, the kernel seam, the event bus,
// the logger, the configuration and the clock (injectable for tests).
import type { Config } from './config';
import type { EventBus } from './events/bus';
import type { KernelPlane } from './kernel/plane';
import type { Logger } from './log';
import type { Store } from './store/store';

export interface App {
  config: Config;
  store: Store;
  kernel: KernelPlane;
  events: EventBus;
  log: Logger;
  now(): Date;
}

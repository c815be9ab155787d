// The daemon's one history recorder, made on first use for an App (the usage job writes
// through it, the API reads its open bucket); the daemon closes it before the store.
import type { App } from '../app';
import { HistoryRecorder } from './recorder';
import { HistoryTable } from './table';

const recorders = new WeakMap<App, HistoryRecorder>();

export function historyOf(app: App): HistoryRecorder {
  let r = recorders.get(app);
  if (!r) {
    r = new HistoryRecorder(app.store, new HistoryTable(app.store.db), app.log);
    recorders.set(app, r);
  }
  return r;
}

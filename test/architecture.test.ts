// The house's order, read off the TypeScript sources of src/ (type imports, re-exports and
// dynamic imports included), resolved by the compiler's type checker: requests flow
// http -> api -> ops -> store/kernel; nothing imports api/ but the daemon's wiring; HTTP
// handlers never write the store; only the operations apply kernel changes.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { folderOf, moduleOf, SourceModel } from './helpers/source-model';

const t = suite('architecture: who may import and call whom');

const model = new SourceModel();
const modules = model.modules;

// Imports that break the rules below today, each to be removed when its import is gone.
const IMPORTS_TODAY = [
  // A type import: the presenter shows a server's kernel state (`kernelState`) as the plane types it.
  'views/present -> kernel/plane',
  // A type import: serverChanged carries the server's kernel state, typed by the plane.
  'views/event-data -> kernel/plane',
];

/** Edges from modules in `from` (a folder or a top-level module) to modules in `to`, type imports included. */
function edges(from: string, to: string): string[] {
  return [...new Set(model.edges.filter((e) => folderOf(e.from) === from && folderOf(e.to) === to).map((e) => `${e.from} -> ${e.to}`))]
    .filter((e) => !IMPORTS_TODAY.includes(e));
}

const inStore = (file: string) => file.includes('/src/store/');
const SQLITE_WRITES = /^Database\.(exec|prepare|transaction)$/;

/** "module -> Class.member" for each store write (or raw SQLite use) a module refers to. */
function storeWrites(mod: string): string[] {
  const found = model.references(mod).filter((r) => (inStore(r.declaredIn) && model.writeMembers.has(r.name))
    || (r.declaredIn.includes('/better-sqlite3/') && SQLITE_WRITES.test(r.name)));
  return [...new Set(found.map((r) => `${mod} -> ${r.name}`))];
}

const KERNEL_APPLY = /^\w+\.(applyPeer|applyPeers|applyServer|applyForward|syncServer|prepare)$/;
const KERNEL_TOOLS = ['kernel/live', 'nft/session', 'nft/apply', 'wg/link', 'shaping/shaper', 'shaping/tc-session'];

/** "module -> Plane.method" for each kernel change a module makes, "module -> tool" for each tool it imports. */
function kernelChanges(mod: string): string[] {
  const calls = model.references(mod).filter((r) => r.declaredIn.includes('/src/kernel/') && KERNEL_APPLY.test(r.name)).map((r) => `${mod} -> ${r.name}`);
  const tools = model.edges.filter((e) => e.from === mod && KERNEL_TOOLS.includes(e.to)).map((e) => `${mod} -> ${e.to}`);
  return [...new Set([...calls, ...tools])];
}

// The writes that are records rather than changes (docs/development.md), each a module and
// what it calls: remove an entry when its call is gone; a stale entry fails the suite, and
// so does any writer not listed here.
const HANDLER_WRITES_TODAY = [
  // Sign-in bookkeeping (a key's last use, dashboard sessions) written by the HTTP layer itself.
  'http/auth -> CredentialTable.touch', 'http/auth -> SessionTable.use',
  'http/session -> CredentialTable.touch', 'http/session -> SessionTable.open', 'http/session -> SessionTable.use', 'http/session -> SessionTable.close',
  // Single sign-on's callback opens the person's session as the key sign-in does.
  'http/oidc -> SessionTable.open',
];

const WRITES_OUTSIDE_OPS_TODAY = [
  // Opening the store runs its migrations: the entry points that open it.
  'daemon -> Store.open', 'cli/main -> Store.open', 'cli/import -> Store.open',
  // Start-up, before anything listens: a database from before links were marked adopts them once.
  'daemon -> JobStateTable.set',
  // Telemetry: heartbeat reports and the traffic history, written apart from the changes.
  'device/heartbeat-writer -> Store.telemetryTx', 'device/heartbeat-writer -> DeviceTable.recordHeartbeat',
  'history/recorder -> Store.telemetryTx', 'history/table -> Database.prepare',
  // The first API key, made when the daemon starts with none.
  'first-key -> CredentialTable.create',
  // Databases other than the store's: a backup's copy, a backup being verified, wg-easy's file, the scrape's read.
  'backup/snapshot -> Database.exec', 'backup/snapshot -> Database.prepare',
  'backup/verify -> Database.prepare', 'backup/verify -> store/migrations#MIGRATIONS', 'backup/verify -> store/ipv6-backfill#backfillIpv6',
  'import/wg-easy-v15-read -> Database.prepare', 'metrics/scrape-read -> Database.prepare',
];

const KERNEL_CHANGES_TODAY: string[] = [
  // (none: the daemon's start-up prepare is allowed by the rule itself)
];

/** What `found` holds beyond `allowed`, and which allowed entries are no longer found. */
function againstAllowList(found: string[], allowed: string[]): { unlisted: string[]; stale: string[] } {
  return { unlisted: found.filter((f) => !allowed.includes(f)).sort(), stale: allowed.filter((a) => !found.includes(a)).sort() };
}

t('the sources were read: every module, its type imports, the store\'s write methods', () => {
  assert.ok(modules.length > 100, `only ${modules.length} modules found`);
  assert.ok(model.edges.some((e) => e.from === 'daemon' && e.to === 'api/routes'), 'the daemon wires the API');
  assert.ok(model.edges.some((e) => e.from === 'ops/runner' && e.to === 'kernel/plane' && e.typeOnly), 'an `import type` is an edge');
  for (const w of ['WebhookTable.insert', 'WebhookTable.update', 'WebhookTable.delete', 'PeerTable.insert', 'PeerTable.update', 'SmtpTable.save', 'Store.tx']) {
    assert.ok(model.writeMembers.has(w), `${w} is a write`);
  }
  for (const r of ['WebhookTable.get', 'WebhookTable.listByServer', 'PeerTable.get', 'PeerTable.search', 'ServerTable.list', 'Store.revision']) {
    assert.not.ok(model.writeMembers.has(r), `${r} only reads`);
  }
});

t('nothing imports api/ but the daemon\'s wiring (and api/ itself)', () => {
  const wrong = model.edges.filter((e) => folderOf(e.to) === 'api' && e.from !== 'daemon' && folderOf(e.from) !== 'api');
  assert.equal(wrong.map((e) => `${e.from} -> ${e.to}`).filter((e) => !IMPORTS_TODAY.includes(e)), []);
});

t('operations never reach back into HTTP, the jobs, the CLI or the event consumers', () => {
  for (const to of ['api', 'http', 'jobs', 'cli', 'daemon', 'main']) assert.equal(edges('ops', to), [], `ops -> ${to}`);
  assert.equal(edges('ops', 'events').filter((e) => !e.endsWith('events/bus')), []);
});

t('jobs enter at the operations: never api/, the CLI or the event consumers', () => {
  for (const to of ['api', 'cli', 'daemon', 'main']) assert.equal(edges('jobs', to), [], `jobs -> ${to}`);
  assert.equal(edges('jobs', 'events').filter((e) => !e.endsWith('events/bus')), []);
});

t('the event consumers never start or import the jobs, the CLI or the API', () => {
  for (const to of ['jobs', 'cli', 'api', 'daemon', 'main']) assert.equal(edges('events', to), [], `events -> ${to}`);
});

t('the CLI works through the operations and the store, never the daemon, the API, the jobs or the consumers', () => {
  for (const to of ['api', 'jobs', 'events', 'daemon', 'main', 'http']) assert.equal(edges('cli', to), [], `cli -> ${to}`);
});

t('the store and the views depend on nothing above them', () => {
  for (const from of ['store', 'views']) {
    for (const to of ['api', 'ops', 'jobs', 'cli', 'events', 'http', 'daemon', 'kernel']) {
      assert.equal(edges(from, to), [], `${from} -> ${to}`);
    }
  }
});

// Folder imports that go against the order today, each closing a cycle between folders; the
// rest of the folder graph has none. Remove an entry when its imports are gone (a stale entry
// fails the suite); a new cycle fails it too. The order, top to bottom: main, daemon, cli,
// api, metrics, device, jobs, events, http, ops, import, backup, views, history, app,
// schedule, kernel, shaping, nft, wg, store, resources, access, config, log, net, exec (net/,
// the one address library, imports no other folder).
const FOLDER_EDGES_AGAINST_THE_ORDER_TODAY = [
  // Rules and field errors of ops/ used by what sits below it (parsing of imports and backups, the audit query, the resource descriptions' value rules).
  'access -> ops', 'backup -> ops', 'import -> ops', 'resources -> ops',
  // The app's type names the runner and the bus it carries, and the services the daemon hands down in it (src/services.ts).
  'app -> ops', 'app -> events', 'app -> metrics', 'app -> history', 'app -> device', 'app -> http', 'app -> ha',
  // The change runner's events go onto the bus; the senders settle their outbox rows through ops/.
  'ops -> events',
  // Device identifiers, the salt and the forwards' hash live in device/ and are used by ops, events and http.
  'ops -> device', 'events -> device', 'http -> device',
  // A restore makes the first key again.
  'ops -> first-key',
  // Settings: the environment's single sign-on is parsed by access/, the store names roles of access/, log reads config's type.
  'config -> access', 'access -> store', 'log -> config',
  // Keys, client options and interface names live in wg/ (addresses are net/'s, below everything).
  'store -> wg', 'resources -> wg',
  // A peer's stored schedule is parsed by schedule/.
  'store -> schedule',
];

/** The folder graph (type imports included), without the listed edges. */
function folderGraph(skip: readonly string[]): Map<string, Set<string>> {
  const g = new Map<string, Set<string>>();
  for (const e of model.edges) {
    const [a, b] = [folderOf(e.from), folderOf(e.to)];
    if (a === b || skip.includes(`${a} -> ${b}`)) continue;
    if (!g.has(a)) g.set(a, new Set());
    g.get(a)!.add(b);
  }
  return g;
}

/** One cycle of the graph as "a -> b -> a", or null. */
function aCycle(g: Map<string, Set<string>>): string | null {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (v: string): string | null => {
    state.set(v, 'open');
    path.push(v);
    for (const w of g.get(v) ?? []) {
      if (state.get(w) === 'open') return [...path.slice(path.indexOf(w)), w].join(' -> ');
      if (!state.has(w)) { const c = visit(w); if (c) return c; }
    }
    path.pop();
    state.set(v, 'done');
    return null;
  };
  for (const v of g.keys()) if (!state.has(v)) { const c = visit(v); if (c) return c; }
  return null;
}

t('no import cycles between src/ folders (but the listed edges against the order)', () => {
  assert.is(aCycle(folderGraph(FOLDER_EDGES_AGAINST_THE_ORDER_TODAY)), null, 'a cycle between folders');
  const all = folderGraph([]);
  const stale = FOLDER_EDGES_AGAINST_THE_ORDER_TODAY.filter((e) => { const [a, b] = e.split(' -> '); return !all.get(a)?.has(b); });
  assert.equal(stale, [], 'listed as against the order but no longer imported: remove it');
});

t('exec/ runs the tools and imports no other folder; nft/, wg/ and shaping/ never import kernel/', () => {
  assert.equal([...folderGraph([]).get('exec') ?? []], []);
  for (const low of ['nft', 'wg', 'shaping']) assert.not.ok(folderGraph([]).get(low)?.has('kernel'), `${low} -> kernel`);
});

t('net/ is the one address library and imports no other folder', () => {
  assert.equal([...folderGraph([]).get('net') ?? []], []);
});

t('the resource descriptions sit below the store: nothing above them but the pure value rules of ops/', () => {
  for (const to of ['api', 'http', 'jobs', 'cli', 'events', 'daemon', 'kernel', 'store', 'views']) assert.equal(edges('resources', to), [], `resources -> ${to}`);
  assert.equal(edges('resources', 'ops').filter((e) => !/ops\/(value-rules|name-rule)$/.test(e)), []);
});

t('every import listed as breaking a rule today still exists (remove it from IMPORTS_TODAY when it is gone)', () => {
  const all = new Set(model.edges.map((e) => `${e.from} -> ${e.to}`));
  assert.equal(IMPORTS_TODAY.filter((e) => !all.has(e)), []);
});

t('an HTTP handler (api/, http/) never writes the store: no table write, no transaction, no raw SQL', () => {
  const found = modules.filter((m) => ['api', 'http'].includes(folderOf(m))).flatMap(storeWrites);
  const { unlisted, stale } = againstAllowList(found, HANDLER_WRITES_TODAY);
  assert.equal(unlisted, [], 'a handler writes the store: call an operation of src/ops/ instead');
  assert.equal(stale, [], 'listed as writing the store but no longer does: remove it from HANDLER_WRITES_TODAY');
});

t('outside the operations and the store itself, nothing writes the store', () => {
  const found = modules.filter((m) => !['api', 'http', 'ops', 'store'].includes(folderOf(m))).flatMap(storeWrites);
  const { unlisted, stale } = againstAllowList(found, WRITES_OUTSIDE_OPS_TODAY);
  assert.equal(unlisted, [], 'a module outside src/ops/ writes the store');
  assert.equal(stale, [], 'listed as writing the store but no longer does: remove it from WRITES_OUTSIDE_OPS_TODAY');
});

t('only the operations apply kernel changes (the daemon only its start-up prepare)', () => {
  const mayApply = (m: string) => ['ops', 'kernel'].includes(folderOf(m));
  // nft/ and wg/ are the tools the kernel plane drives: they may use each other.
  const toolLayer = (m: string, change: string) => ['nft', 'wg', 'shaping'].includes(folderOf(m)) && folderOf(change.split(' -> ')[1]) === folderOf(m);
  const found = modules.filter((m) => !mayApply(m)).flatMap(kernelChanges)
    .filter((c) => !/^daemon -> \w+\.prepare$/.test(c) && !toolLayer(c.split(' -> ')[0], c));
  const { unlisted, stale } = againstAllowList(found, KERNEL_CHANGES_TODAY);
  assert.equal(unlisted, [], 'a module outside src/ops/ applies a kernel change');
  assert.equal(stale, [], 'listed as applying a kernel change but no longer does: remove it from KERNEL_CHANGES_TODAY');
});

// The daemon's services are made once in src/services.ts and handed down in app.services: a
// WeakMap at module level keyed by the App (or its store, or its settings) is a service the
// wiring does not show. These stay, each a cache of data of the object that keys it.
const WEAKMAPS_THAT_STAY = [
  'metrics/scrape-read', // a database's prepared statements
  'metrics/families', // a scraped peer's shared label object
  'http/router', // a route table's compiled patterns
  'kernel/reconcile-peers', // a model's wanted peers, kept by its revision
  'events/stream', // fields of the stream object: what let each request in
];
const textOf = (m: string): string => model.files.find((f) => moduleOf(f.fileName) === m)!.text;

t('no WeakMap side stores: services live in app.services (src/services.ts); the caches listed stay', () => {
  const found = modules.filter((m) => /new WeakMap\s*</.test(textOf(m)));
  assert.equal(found.filter((m) => !WEAKMAPS_THAT_STAY.includes(m)), [], 'a WeakMap outside the list: make it a service of src/services.ts, or list it if it caches data of the object that keys it');
  assert.equal(WEAKMAPS_THAT_STAY.filter((m) => !found.includes(m)), [], 'listed but has no WeakMap: remove it from WEAKMAPS_THAT_STAY');
  assert.equal(modules.filter((m) => /WeakMap\s*<\s*(App|Store|Config|OidcSettings)\b/.test(textOf(m))), [], 'a WeakMap keyed by the App, its store or its settings');
});

t('no Proxy in src/: what a module is handed is what it is', () => {
  assert.equal(modules.filter((m) => /\bnew Proxy\b|\bProxy\./.test(textOf(m))), []);
});

// A double cast says a value is what its type says it is not. The one left crosses a wrong typing
// of a library: prom-client types a metric's `type` as a numeric enum that does not exist at run time.
const DOUBLE_CASTS_THAT_STAY = ['metrics/exposition'];

t('no `as unknown as` in src/ (but the listed crossing of a library typing)', () => {
  const found = modules.filter((m) => /\bas unknown as\b/.test(textOf(m)));
  assert.equal(found.filter((m) => !DOUBLE_CASTS_THAT_STAY.includes(m)), [], 'a double cast: give the value its type where it is made');
  assert.equal(DOUBLE_CASTS_THAT_STAY.filter((m) => !found.includes(m)), [], 'listed but no longer casts twice: remove it');
});

t.run();

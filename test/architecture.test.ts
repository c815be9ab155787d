// The house's order, read off the compiled import graph of dist/src: requests flow
// http -> api -> ops -> store/kernel; jobs and the CLI enter at the operations; nothing
// imports api/ but the daemon's wiring; events never start or import the jobs.
import fs from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

const t = suite('architecture: who may import whom');

const SRC = path.join(__dirname, '..', 'src');

/** Every module of dist/src (as "folder/file") with the modules it requires. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.js')) {
        const text = fs.readFileSync(full, 'utf8');
        const deps = [...text.matchAll(/require\("(\.[^"]+)"\)/g)].map((m) => path.relative(SRC, path.resolve(path.dirname(full), m[1])).replace(/\.js$/, ''));
        graph.set(path.relative(SRC, full).replace(/\.js$/, ''), deps);
      }
    }
  };
  walk(SRC);
  return graph;
}

const graph = importGraph();
const folderOf = (mod: string): string => (mod.includes('/') ? mod.split('/')[0] : mod);

/** Edges from modules in `from` (a folder or a top-level module) to modules in `to`. */
function edges(from: string, to: string): string[] {
  const out: string[] = [];
  for (const [mod, deps] of graph) {
    if (folderOf(mod) !== from) continue;
    for (const d of deps) if (folderOf(d) === to) out.push(`${mod} -> ${d}`);
  }
  return out;
}

t('the graph was read from the compiled sources', () => {
  assert.ok(graph.size > 50, `only ${graph.size} modules found`);
  assert.ok(graph.get('daemon')?.includes('api/routes'), 'the daemon wires the API');
});

t('nothing imports api/ but the daemon\'s wiring (and api/ itself)', () => {
  const wrong: string[] = [];
  for (const [mod, deps] of graph) {
    if (mod === 'daemon' || folderOf(mod) === 'api') continue;
    for (const d of deps) if (folderOf(d) === 'api') wrong.push(`${mod} -> ${d}`);
  }
  assert.equal(wrong, []);
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

t.run();

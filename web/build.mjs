// Builds the dashboard into dist/web: index.html, and under assets/ the bundled script (an
// ES module) and stylesheet named by content hash, the chunks views load when first shown
// (`import()`: the passkey views and their WebAuthn library), the icon, and a .gz of each
// text file (wgcpd sends those to browsers that take gzip). Type-checks web/src first;
// fails when the first load (the script, the chunks it imports at once, the stylesheet,
// gzipped) is over its budget.
//
//   node web/build.mjs             build
//   node web/build.mjs --if-stale  build only when web/ changed since the last build
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.join(here, '..');
const out = path.join(root, 'dist', 'web');
const infoFile = path.join(out, 'build-info.json');
export const BUDGET_GZIP_BYTES = 64 * 1024;

/** A hash of everything the build reads: a changed file, or another preact, means a new build. */
function inputsHash() {
  const h = crypto.createHash('sha256');
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else h.update(path.relative(here, p)).update('\0').update(fs.readFileSync(p)).update('\0');
    }
  };
  walk(path.join(here, 'src'));
  for (const f of ['build.mjs', 'tsconfig.json']) h.update(f).update(fs.readFileSync(path.join(here, f)));
  // The one module the page shares with wgcpd (the data limit's rule, web/src/format.ts).
  h.update(fs.readFileSync(path.join(root, 'src', 'data-limit.ts')));
  h.update(JSON.parse(fs.readFileSync(path.join(root, 'node_modules', 'preact', 'package.json'), 'utf8')).version);
  return h.digest('hex');
}

function isFresh(hash) {
  try {
    const info = JSON.parse(fs.readFileSync(infoFile, 'utf8'));
    return info.inputs === hash && info.files.every((f) => fs.existsSync(path.join(out, f.name)));
  } catch {
    return false;
  }
}

/** The fields' words of every language (locales/fields.ts, compiled by esbuild and imported). */
async function fieldWordsOf(esbuild, file) {
  const { code } = await esbuild.transform(fs.readFileSync(file, 'utf8'), { loader: 'ts', format: 'esm' });
  return (await import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`)).FIELD_WORDS;
}
const columnOf = (fieldWords, lang) => Object.fromEntries(Object.entries(fieldWords).map(([k, w]) => [k, w[lang]]));

const contentName = (stem, ext, body) => `${stem}-${crypto.createHash('sha256').update(body).digest('hex').slice(0, 12)}${ext}`;

async function build(hash) {
  execFileSync(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', path.join(here, 'tsconfig.json')], { stdio: 'inherit' });
  const esbuild = await import('esbuild');
  // The catalogues but English's (which is in the script) are files of their own, fetched
  // when chosen: each named by its hash, their addresses put into the script. Each gets its
  // language's column of the fields' words (locales/fields.ts), and the script only English's.
  const localeDir = path.join(here, 'src', 'locales');
  const fieldWords = await fieldWordsOf(esbuild, path.join(localeDir, 'fields.ts'));
  const locales = fs.readdirSync(localeDir).filter((f) => f.endsWith('.json')).sort().map((f) => {
    const lang = f.slice(0, -5);
    const words = JSON.parse(fs.readFileSync(path.join(localeDir, f), 'utf8'));
    const both = Object.keys(fieldWords).filter((k) => k in words);
    if (both.length) throw new Error(`${f} and fields.ts both have ${both.join(', ')}`);
    const body = Buffer.from(JSON.stringify({ ...words, ...columnOf(fieldWords, lang) }));
    return { lang, name: `assets/${contentName(`locale-${lang}`, '.json', body)}`, body };
  });
  const englishFieldsOnly = {
    name: 'english-field-words-only',
    setup(b) {
      b.onLoad({ filter: /[\\/]locales[\\/]fields\.ts$/ }, () => ({ loader: 'js', contents: `export const fieldWordsIn = () => (${JSON.stringify(columnOf(fieldWords, 'en'))});` }));
    },
  };
  const result = await esbuild.build({
    plugins: [englishFieldsOnly],
    define: { __WGCP_LOCALES__: JSON.stringify(Object.fromEntries(locales.map((l) => [l.lang, `/${l.name}`]))) },
    entryPoints: [path.join(here, 'src', 'main.tsx')],
    bundle: true,
    minify: true,
    format: 'esm',
    splitting: true,
    entryNames: 'app-[hash]',
    chunkNames: 'chunk-[hash]',
    metafile: true,
    target: ['es2020'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    legalComments: 'eof',
    write: false,
    outdir: 'out',
    logLevel: 'warning',
  });
  // The entry, and what it imports at once (loaded with it: the first load), found in the metafile.
  const outputs = result.metafile.outputs;
  const rel = (p) => path.relative(path.resolve('out'), path.resolve(p));
  const entry = Object.keys(outputs).find((o) => outputs[o].entryPoint && o.endsWith('.js'));
  const css = Object.keys(outputs).find((o) => o.endsWith('.css'));
  if (!entry || !css) throw new Error('esbuild made no script or no stylesheet');
  const atOnce = new Set();
  const follow = (o) => {
    for (const i of outputs[o].imports) if (i.kind === 'import-statement' && !atOnce.has(i.path)) { atOnce.add(i.path); follow(i.path); }
  };
  follow(entry);
  const scripts = result.outputFiles.filter((f) => f.path.endsWith('.js')).map((f) => ({ name: rel(f.path), body: Buffer.from(f.contents) }));
  const cssBody = Buffer.from(result.outputFiles.find((f) => rel(f.path) === rel(css)).contents);
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(path.join(out, 'assets'), { recursive: true });
  const icon = fs.readFileSync(path.join(here, 'src', 'icon.svg'));
  const names = { js: rel(entry), css: contentName('app', '.css', cssBody), icon: contentName('icon', '.svg', icon) };
  const preload = [...atOnce].map((c) => `<link rel="modulepreload" href="/assets/${rel(c)}">`).join('\n');
  const html = fs.readFileSync(path.join(here, 'src', 'index.html'), 'utf8')
    .replace('{{css}}', `/assets/${names.css}`).replace('{{js}}', `/assets/${names.js}`).replace('{{icon}}', `/assets/${names.icon}`).replace('{{preload}}', preload);
  const firstLoad = new Set([rel(entry), ...[...atOnce].map(rel)]);
  const files = [
    { name: 'index.html', body: Buffer.from(html) },
    ...scripts.map((f) => ({ name: `assets/${f.name}`, body: f.body, firstLoad: firstLoad.has(f.name) })),
    { name: `assets/${names.css}`, body: cssBody, firstLoad: true },
    { name: `assets/${names.icon}`, body: icon },
    ...locales.map((l) => ({ name: l.name, body: l.body })),
  ];
  const listed = [];
  for (const f of files) {
    const gz = zlib.gzipSync(f.body, { level: 9 });
    fs.writeFileSync(path.join(out, f.name), f.body);
    fs.writeFileSync(path.join(out, `${f.name}.gz`), gz);
    listed.push({ name: f.name, bytes: f.body.length, gzipBytes: gz.length, firstLoad: Boolean(f.firstLoad) });
  }
  const firstLoadGzipBytes = listed.filter((f) => f.firstLoad).reduce((n, f) => n + f.gzipBytes, 0);
  fs.writeFileSync(infoFile, JSON.stringify({ inputs: hash, firstLoadGzipBytes, budgetGzipBytes: BUDGET_GZIP_BYTES, files: listed }, null, 2) + '\n');
  for (const f of listed) console.log(`  ${f.name}  ${f.bytes} B, ${f.gzipBytes} B gzipped`);
  console.log(`dashboard built in dist/web: first load ${firstLoadGzipBytes} B gzipped (budget ${BUDGET_GZIP_BYTES})`);
  if (firstLoadGzipBytes > BUDGET_GZIP_BYTES) throw new Error(`the first load is ${firstLoadGzipBytes} B gzipped, over the budget of ${BUDGET_GZIP_BYTES} B`);
}

// The page's types of the described resources (web/src/types.generated.ts) are written from
// src/resources/ by the compiled daemon first, so the hash below sees them as they are now.
const typesWriter = path.join(root, 'dist', 'src', 'resources', 'page-types.js');
if (fs.existsSync(typesWriter)) execFileSync(process.execPath, [typesWriter, root], { stdio: 'inherit' });
else console.log('dist/src/resources/page-types.js is not built: web/src/types.generated.ts is used as it is (npm run build first)');

const hash = inputsHash();
if (process.argv.includes('--if-stale') && isFresh(hash)) {
  console.log('dashboard in dist/web is up to date');
} else {
  await build(hash).catch((err) => {
    console.error(`build:web failed: ${err.message}`);
    process.exit(1);
  });
}

// Bundles the agent for Node 18 or later on any CPU, with no native dependency: the agent in
// dist/wgcp-agent.js, and @peculiar/webcrypto apart in dist/wgcp-agent-webcrypto.js, which
// the agent loads only where Node has no WebCrypto. Kept in the agent's file, it cost about
// 1.4 MB of RSS on every device for code that never runs there (bench/RESULTS.md).
const esbuild = require('esbuild');
const fs = require('node:fs');
const path = require('node:path');

const here = (p) => path.join(__dirname, p);
const WEBCRYPTO_FILE = 'wgcp-agent-webcrypto.js';
const common = { bundle: true, platform: 'node', target: 'node18', format: 'cjs', minify: false, legalComments: 'none', logLevel: 'warning' };
const version = JSON.parse(fs.readFileSync(here('package.json'), 'utf8')).version;

// The agent's import('@peculiar/webcrypto') becomes a require of the file beside it.
const webcryptoApart = {
  name: 'webcrypto-apart',
  setup(build) {
    build.onResolve({ filter: /^@peculiar\/webcrypto$/ }, () => ({ path: `./${WEBCRYPTO_FILE}`, external: true }));
  },
};

esbuild.buildSync({
  ...common,
  stdin: { contents: "export { Crypto } from '@peculiar/webcrypto';", resolveDir: __dirname, loader: 'js' },
  outfile: here(`dist/${WEBCRYPTO_FILE}`),
});
esbuild.build({
  ...common,
  entryPoints: [here('src/main.ts')],
  outfile: here('dist/wgcp-agent.js'),
  banner: { js: '#!/usr/bin/env node' },
  define: { WGCP_AGENT_VERSION: JSON.stringify(version) },
  plugins: [webcryptoApart],
}).then(() => fs.chmodSync(here('dist/wgcp-agent.js'), 0o755), (err) => { console.error(err.message); process.exit(1); });

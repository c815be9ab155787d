// Bundles the agent into one JavaScript file with no native dependency (dist/wgcp-agent.js),
// for Node 18 or later on any CPU.
const esbuild = require('esbuild');
const fs = require('node:fs');
const path = require('node:path');

const here = (p) => path.join(__dirname, p);

esbuild.buildSync({
  entryPoints: [here('src/main.ts')],
  outfile: here('dist/wgcp-agent.js'),
  bundle: true,
  platform: 'node',
  target: 'node18',
  format: 'cjs',
  minify: false,
  legalComments: 'none',
  banner: { js: '#!/usr/bin/env node' },
  logLevel: 'warning',
});
fs.chmodSync(here('dist/wgcp-agent.js'), 0o755);

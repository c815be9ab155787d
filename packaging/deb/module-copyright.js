// Appends one copyright stanza per bundled npm module (name, version, licence from its
// package.json); each module's own licence text ships beside it in node_modules.
// Usage: node module-copyright.js NODE_MODULES_DIR PATH_IN_PACKAGE
const fs = require('node:fs');
const path = require('node:path');

const [dir, inPackage] = process.argv.slice(2);

function modules(base) {
  const found = [];
  for (const name of fs.readdirSync(base).sort()) {
    if (name.startsWith('.')) continue;
    if (name.startsWith('@')) {
      for (const sub of fs.readdirSync(path.join(base, name)).sort()) found.push(`${name}/${sub}`);
    } else {
      found.push(name);
    }
  }
  return found;
}

for (const name of modules(dir)) {
  const pkg = JSON.parse(fs.readFileSync(path.join(dir, name, 'package.json'), 'utf8'));
  const license = typeof pkg.license === 'string' ? pkg.license : 'see the module\'s LICENSE file';
  const author = typeof pkg.author === 'string' ? pkg.author : pkg.author?.name ?? `the ${name} authors`;
  process.stdout.write(`\nFiles: ${inPackage}/${name}/*\nCopyright: ${author}\nLicense: ${license}\nComment: ${name} ${pkg.version}; the licence text is in that folder.\n`);
}

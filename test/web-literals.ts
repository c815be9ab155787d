// Words a person reads that a view wrote in English instead of taking from the catalogues:
// the page's sources read with the TypeScript compiler, and every place where text reaches
// the screen looked at. What counts as words: JSX text with a letter in it (outside <code>,
// which holds commands and file names), a string given to an attribute people read (label,
// hint, title, placeholder, alt, aria-label, and the page's own text props), and any other
// string or template with a phrase in it (two words), such as a notice or an error.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export interface Literal { file: string; line: number; text: string }

/** Attributes whose string a person reads or hears. */
const SHOWN_ATTRIBUTES = new Set(['label', 'hint', 'title', 'placeholder', 'alt', 'aria-label', 'text', 'what', 'yes', 'summary']);
/** Attributes that hold names for the code (classes, ids, kinds of input), never words. */
const CODE_ATTRIBUTES = new Set(['class', 'className', 'id', 'for', 'key', 'name', 'type', 'role', 'inputMode', 'autoComplete', 'aria-describedby',
  'aria-labelledby', 'aria-current', 'aria-sort', 'aria-invalid', 'aria-live', 'aria-pressed', 'href', 'src', 'rel', 'download', 'lang', 'value', 'dateTime', 'method', 'style']);
/** Calls whose strings are for the code: a key of the catalogue, a selector, a route. */
const CODE_CALLS = new Set(['t', 'say', 'can', 'querySelector', 'querySelectorAll', 'getElementById', 'api', 'get', 'getPage', 'getFile', 'fetch', 'href', 'startsWith', 'endsWith', 'setAttribute']);

/** Words that are names, the same in every language (the product, protocols, units). */
const NAMES = /^(wgcp|wgcpd|WireGuard|URL|HTTP|DNS|MTU|TCP|UDP|Slack|Discord|IPv4|IPv6|GiB|MiB|KiB|TiB|Mbit\/s|B)$/;
/** An example value such as vpn.example.com:51820 or fd12::1/64: no space, a dot, colon or slash in it. */
const EXAMPLE = /^[^\s]*[.:/@][^\s]*$/;
const PHRASE = /[A-Za-z][a-z]+ [a-z]{2,}/;

function words(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function isShownWord(text: string): boolean {
  const w = words(text);
  if (!/[A-Za-z]{2,}/.test(w)) return false;
  return !w.split(' ').every((part) => NAMES.test(part.replace(/[()·,:;.]/g, '')) || EXAMPLE.test(part) || !/[A-Za-z]{2,}/.test(part));
}

function calleeName(call: ts.CallExpression): string {
  const e = call.expression;
  if (ts.isIdentifier(e)) return e.text;
  if (ts.isPropertyAccessExpression(e)) return e.name.text;
  return '';
}

/** The English words of one source file. */
export function literalsOf(file: string, source: string): Literal[] {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found: Literal[] = [];
  const add = (node: ts.Node, text: string) => found.push({ file, line: sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1, text: words(text) });

  /** Where a string sits decides whether it is words: an attribute or call for the code is not. */
  const forCode = (node: ts.Node): boolean => {
    for (let p = node.parent; p; p = p.parent) {
      if (ts.isJsxAttribute(p)) return CODE_ATTRIBUTES.has(p.name.getText(sf));
      if (ts.isCallExpression(p) && CODE_CALLS.has(calleeName(p))) return true;
      if (ts.isNewExpression(p) && p.expression.getText(sf) === 'Error') return true;
      if (ts.isImportDeclaration(p) || ts.isExportDeclaration(p) || ts.isLiteralTypeNode(p)) return true;
      if (ts.isElementAccessExpression(p) || ts.isCaseClause(p) || ts.isBinaryExpression(p) && /[=!]==/.test(p.operatorToken.getText(sf))) return true;
      if (ts.isBlock(p) || ts.isSourceFile(p)) return false;
    }
    return false;
  };
  /** Inside JSX: there even one word (a button's "Save") reaches the screen. */
  const inJsx = (node: ts.Node): boolean => {
    for (let p = node.parent; p; p = p.parent) {
      if (ts.isJsxExpression(p) || ts.isJsxAttribute(p)) return true;
      if (ts.isBlock(p) || ts.isSourceFile(p)) return false;
    }
    return false;
  };
  const insideCode = (node: ts.Node): boolean => {
    for (let p = node.parent; p; p = p.parent) {
      if (ts.isJsxElement(p) && p.openingElement.tagName.getText(sf) === 'code') return true;
    }
    return false;
  };

  const visit = (node: ts.Node) => {
    if (ts.isJsxText(node)) {
      if (isShownWord(node.text) && !insideCode(node)) add(node, node.text);
    } else if (ts.isJsxAttribute(node) && node.initializer && ts.isStringLiteral(node.initializer)) {
      const name = node.name.getText(sf);
      if (SHOWN_ATTRIBUTES.has(name) && isShownWord(node.initializer.text)) add(node, `${name}="${node.initializer.text}"`);
      return;
    } else if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
      if ((PHRASE.test(node.text) || (inJsx(node) && /^[A-Z]/.test(node.text) && isShownWord(node.text))) && !forCode(node)) add(node, node.text);
    } else if (ts.isTemplateExpression(node)) {
      const text = [node.head.text, ...node.templateSpans.map((s) => s.literal.text)].join(' … ');
      if (PHRASE.test(text) && !forCode(node)) add(node, text);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

/** Every view's English words under `dir` (web/src), the catalogues left out. */
export function pageLiterals(dir: string): Literal[] {
  const out: Literal[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) { if (e.name !== 'locales') walk(p); } else if (/\.tsx?$/.test(e.name)) out.push(...literalsOf(path.relative(dir, p), fs.readFileSync(p, 'utf8')));
    }
  };
  walk(dir);
  return out;
}

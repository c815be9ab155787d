// The TypeScript sources of src/ as the compiler sees them, for test/architecture.test.ts:
// every module's imports (type imports, re-exports and dynamic imports included), the store's
// write members (derived from the SQL they run) and what each module refers to, resolved by
// the type checker so that an alias or a destructured table does not hide a call.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export const SRC = path.join(__dirname, '../../../src');

/** A module's name: its path under src/ without `.ts` ("api/webhooks", "daemon"). */
export const moduleOf = (file: string): string => path.relative(SRC, file).replace(/\.ts$/, '').split(path.sep).join('/');
export const folderOf = (mod: string): string => (mod.includes('/') ? mod.split('/')[0] : mod);

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [full] : [];
  });
}

export interface Edge { from: string; to: string; typeOnly: boolean }

/** A statement that changes rows: INSERT, UPDATE, DELETE or REPLACE, at the start of any SQL text. */
const WRITE_SQL = /(^|[;(]\s*|\bOR\s+\w+\s+)?\b(INSERT\s+(OR\s+\w+\s+)?INTO|UPDATE\s+[\w"]+\s+SET|DELETE\s+FROM|REPLACE\s+INTO)\b/i;

const DESCRIBED_WRITE_SQL = new Set(['insertSql', 'updateSql']);

const textOf = (n: ts.Node): string | null => {
  if (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) return n.text;
  if (ts.isTemplateExpression(n)) return [n.head.text, ...n.templateSpans.map((s) => s.literal.text)].join(' ');
  return null;
};

function forEachDescendant(node: ts.Node, fn: (n: ts.Node) => void): void {
  const visit = (n: ts.Node): void => { fn(n); ts.forEachChild(n, visit); };
  ts.forEachChild(node, visit);
}

export class SourceModel {
  readonly program: ts.Program;
  readonly checker: ts.TypeChecker;
  readonly files: ts.SourceFile[];
  readonly edges: Edge[] = [];
  /** Members of src/store/* (as "Class.member" or "module#function") that run a write statement. */
  readonly writeMembers = new Set<string>();

  constructor() {
    const names = sourceFiles(SRC);
    this.program = ts.createProgram(names, {
      target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS, moduleResolution: ts.ModuleResolutionKind.Node10,
      strict: true, esModuleInterop: true, resolveJsonModule: true, skipLibCheck: true, noEmit: true, types: ['node'],
    });
    this.checker = this.program.getTypeChecker();
    this.files = names.map((n) => this.program.getSourceFile(n)!);
    for (const f of this.files) this.readImports(f);
    this.deriveWriteMembers();
  }

  get modules(): string[] { return this.files.map((f) => moduleOf(f.fileName)); }

  private readImports(f: ts.SourceFile): void {
    const add = (spec: ts.Expression | undefined, typeOnly: boolean): void => {
      if (!spec || !ts.isStringLiteralLike(spec) || !spec.text.startsWith('.')) return;
      const target = path.resolve(path.dirname(f.fileName), spec.text).replace(/\.js$/, '');
      const file = [`${target}.ts`, path.join(target, 'index.ts')].find((c) => fs.existsSync(c)) ?? `${target}.ts`;
      this.edges.push({ from: moduleOf(f.fileName), to: moduleOf(file), typeOnly });
    };
    const visit = (n: ts.Node): void => {
      if (ts.isImportDeclaration(n)) {
        const c = n.importClause;
        const allTypes = !!c && (c.isTypeOnly || (!c.name && !!c.namedBindings && ts.isNamedImports(c.namedBindings)
          && c.namedBindings.elements.length > 0 && c.namedBindings.elements.every((e) => e.isTypeOnly)));
        add(n.moduleSpecifier, allTypes);
      } else if (ts.isExportDeclaration(n)) {
        add(n.moduleSpecifier, n.isTypeOnly);
      } else if (ts.isImportEqualsDeclaration(n) && ts.isExternalModuleReference(n.moduleReference)) {
        add(n.moduleReference.expression, n.isTypeOnly);
      } else if (ts.isImportTypeNode(n) && ts.isLiteralTypeNode(n.argument)) {
        add(n.argument.literal as ts.Expression, true);
      } else if (ts.isCallExpression(n) && (n.expression.kind === ts.SyntaxKind.ImportKeyword
        || (ts.isIdentifier(n.expression) && n.expression.text === 'require'))) {
        add(n.arguments[0], false);
      }
      ts.forEachChild(n, visit);
    };
    visit(f);
  }

  /** The declaration a name refers to, through import aliases. */
  declarationOf(n: ts.Node): ts.Declaration | undefined {
    let s = this.checker.getSymbolAtLocation(n);
    if (s && s.flags & ts.SymbolFlags.Alias) s = this.checker.getAliasedSymbol(s);
    return s?.declarations?.[0];
  }

  /** "Class.member" for a class or interface member, "module#name" for a top-level function or constant. */
  nameOf(d: ts.Declaration): string | null {
    const parent = d.parent;
    const member = (d as ts.NamedDeclaration).name;
    if (!member || !ts.isIdentifier(member) && !ts.isPrivateIdentifier(member)) return null;
    if ((ts.isClassDeclaration(parent) || ts.isInterfaceDeclaration(parent)) && parent.name) return `${parent.name.text}.${member.text}`;
    if (ts.isFunctionDeclaration(d) || (ts.isVariableDeclaration(d) && ts.isSourceFile(d.parent.parent.parent))) {
      return `${moduleOf(d.getSourceFile().fileName)}#${member.text}`;
    }
    return null;
  }

  /** Every name a module refers to (a call, a property read, a passed method), with its declaration. */
  references(mod: string): { name: string; declaredIn: string; text: string }[] {
    const f = this.files.find((x) => moduleOf(x.fileName) === mod);
    if (!f) throw new Error(`no module ${mod}`);
    const out: { name: string; declaredIn: string; text: string }[] = [];
    forEachDescendant(f, (n) => {
      if (!ts.isIdentifier(n) && !ts.isPrivateIdentifier(n)) return;
      if (ts.isImportSpecifier(n.parent) || ts.isImportClause(n.parent)) return;
      const d = this.declarationOf(n);
      const name = d && this.nameOf(d);
      if (!d || !name) return;
      const text = ts.isPropertyAccessExpression(n.parent) && n.parent.name === n ? n.parent.getText(f) : n.getText(f);
      out.push({ name, declaredIn: d.getSourceFile().fileName, text });
    });
    return out;
  }

  /**
   * Members of the store's classes (and its top-level functions) that change rows: those whose
   * body or initializer holds a write statement's SQL (or makes it from a resource description), refers to a member that does, or
   * opens a transaction; repeated until nothing more is found.
   */
  private deriveWriteMembers(): void {
    const storeFiles = this.files.filter((f) => folderOf(moduleOf(f.fileName)) === 'store');
    const bodies: [string, ts.Node][] = [];
    for (const f of storeFiles) {
      forEachDescendant(f, (n) => {
        if ((ts.isMethodDeclaration(n) || ts.isPropertyDeclaration(n) || ts.isGetAccessorDeclaration(n) || ts.isFunctionDeclaration(n)
          || (ts.isVariableDeclaration(n) && ts.isSourceFile(n.parent.parent.parent))) && this.nameOf(n)) {
          bodies.push([this.nameOf(n)!, n]);
        }
        // A field's statement is made in the constructor: `this.insertStmt = db.prepare('INSERT ...')`.
        if (ts.isBinaryExpression(n) && n.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isPropertyAccessExpression(n.left)
          && n.left.expression.kind === ts.SyntaxKind.ThisKeyword) {
          const d = this.declarationOf(n.left.name);
          const name = d && this.nameOf(d);
          if (name) bodies.push([name, n.right]);
        }
      });
    }
    const direct = (body: ts.Node): boolean => {
      let found = false;
      forEachDescendant(body, (n) => {
        const t = textOf(n);
        if (t !== null && WRITE_SQL.test(t)) found = true;
        // The SQL a resource description writes (resources/describe.ts: insertSql, updateSql).
        if (ts.isCallExpression(n) && ts.isIdentifier(n.expression) && DESCRIBED_WRITE_SQL.has(n.expression.text)) found = true;
      });
      return found;
    };
    for (const [name, body] of bodies) if (direct(body)) this.writeMembers.add(name);
    this.writeMembers.add('Store.tx').add('Store.telemetryTx');
    for (let grew = true; grew;) {
      grew = false;
      for (const [name, body] of bodies) {
        if (this.writeMembers.has(name)) continue;
        forEachDescendant(body, (n) => {
          if (this.writeMembers.has(name) || !(ts.isIdentifier(n) || ts.isPrivateIdentifier(n))) return;
          const d = this.declarationOf(n);
          const other = d && this.nameOf(d);
          if (other && other !== name && this.writeMembers.has(other)) {
            this.writeMembers.add(name);
            grew = true;
          }
        });
      }
    }
  }
}

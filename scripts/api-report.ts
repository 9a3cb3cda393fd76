/**
 * The API report: every name each public entry of the two packages exports,
 * with its kind and signature, one committed file per entry under
 * `packages/<package>/api/`. `npm run api:report` rewrites the files; a unit
 * test (test/unit/package/api-report.test.ts) fails when a committed report
 * differs from a freshly built one, so every change of the public surface is
 * a reviewed diff.
 *
 * The report is built from the sources with the TypeScript compiler API (the
 * same types the built declarations carry, without needing a build first).
 * Members tagged `@internal` and private members are left out, as TypeDoc
 * leaves them out of the API documentation.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** One public entry: the import specifier users write and its source file. */
export interface ApiEntry {
  /** The specifier, e.g. `agent-messaging-sdk/crypto`. */
  readonly specifier: string;
  /** Repo-relative source file of the entry. */
  readonly source: string;
  /** Repo-relative report file. */
  readonly report: string;
}

/** Every public entry of both packages, read from their `exports` maps. */
export function apiEntries(): ApiEntry[] {
  const entries: ApiEntry[] = [];
  for (const pkgDir of ['packages/sdk', 'packages/dev']) {
    const pkg = JSON.parse(readFileSync(join(root, pkgDir, 'package.json'), 'utf8')) as {
      name: string;
      exports: Record<string, unknown>;
    };
    for (const [subpath, target] of Object.entries(pkg.exports)) {
      if (subpath === './package.json') continue;
      const dts = (target as { import: { types: string } }).import.types; // ./dist/crypto/index.d.ts
      const source = join(pkgDir, dts.replace(/^\.\/dist\//, 'src/').replace(/\.d\.ts$/, '.ts'));
      const specifier = subpath === '.' ? pkg.name : `${pkg.name}/${subpath.slice(2)}`;
      const name = subpath === '.' ? 'index' : subpath.slice(2).replaceAll('/', '-');
      entries.push({ specifier, source, report: join(pkgDir, 'api', `${name}.api.md`) });
    }
  }
  return entries;
}

const FORMAT =
  ts.TypeFormatFlags.NoTruncation |
  ts.TypeFormatFlags.UseAliasDefinedOutsideCurrentScope |
  ts.TypeFormatFlags.WriteClassExpressionAsTypeLiteral;

function isInternal(decl: ts.Declaration): boolean {
  return ts.getJSDocTags(decl).some((t) => t.tagName.text === 'internal');
}

function isHidden(symbol: ts.Symbol): boolean {
  const decls = symbol.declarations ?? [];
  if (decls.length > 0 && decls.every(isInternal)) return true;
  if (symbol.name.startsWith('#') || symbol.name.startsWith('__@')) return false;
  return decls.some((d) => {
    const mods = ts.getCombinedModifierFlags(d);
    return (mods & ts.ModifierFlags.Private) !== 0 || (mods & ts.ModifierFlags.Protected) !== 0;
  });
}

function kindOf(symbol: ts.Symbol): string {
  const f = symbol.flags;
  if (f & ts.SymbolFlags.Class) return 'class';
  if (f & ts.SymbolFlags.Interface) return 'interface';
  if (f & ts.SymbolFlags.TypeAlias) return 'type';
  if (f & ts.SymbolFlags.Enum) return 'enum';
  if (f & ts.SymbolFlags.Function) return 'function';
  if (f & ts.SymbolFlags.Variable) return 'const';
  if (f & ts.SymbolFlags.Namespace) return 'namespace';
  return 'other';
}

function memberLines(checker: ts.TypeChecker, type: ts.Type, at: ts.Node, isStatic: boolean): string[] {
  const lines: string[] = [];
  const props = checker
    .getPropertiesOfType(type)
    .filter((p) => !isHidden(p) && !p.name.startsWith('#') && !(isStatic && p.name === 'prototype'));
  for (const p of props.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const pt = checker.getTypeOfSymbolAtLocation(p, at);
    const prefix = `${isStatic ? 'static ' : ''}${p.name}`;
    const calls = pt.getCallSignatures();
    const isMethod = (p.flags & ts.SymbolFlags.Method) !== 0;
    if (isMethod && calls.length > 0) {
      for (const s of calls) lines.push(`  ${prefix}${checker.signatureToString(s, at, FORMAT)}`);
    } else {
      const optional = (p.flags & ts.SymbolFlags.Optional) !== 0 ? '?' : '';
      const readonly = isReadonly(p) ? 'readonly ' : '';
      lines.push(`  ${readonly}${prefix}${optional}: ${checker.typeToString(pt, at, FORMAT)}`);
    }
  }
  for (const s of type.getCallSignatures()) lines.push(`  ${checker.signatureToString(s, at, FORMAT)}`);
  const index = checker.getIndexInfosOfType(type);
  for (const info of index) {
    lines.push(
      `  [key: ${checker.typeToString(info.keyType, at, FORMAT)}]: ${checker.typeToString(info.type, at, FORMAT)}`,
    );
  }
  return lines;
}

function isReadonly(p: ts.Symbol): boolean {
  return (p.declarations ?? []).some(
    (d) => (ts.getCombinedModifierFlags(d) & ts.ModifierFlags.Readonly) !== 0,
  );
}

function describeSymbol(checker: ts.TypeChecker, name: string, symbol: ts.Symbol): string {
  const decl = symbol.declarations?.[0];
  if (decl === undefined) return `${kindOf(symbol)} ${name}`;
  const kind = kindOf(symbol);
  if (kind === 'class') {
    const instance = checker.getDeclaredTypeOfSymbol(symbol);
    const ctor = checker.getTypeOfSymbolAtLocation(symbol, decl);
    const lines = [`class ${name}${typeParams(checker, instance, decl)}${heritage(checker, instance, decl)}`];
    const ctorDecls = (symbol.members?.get(ts.InternalSymbolName.Constructor)?.declarations ?? []).filter(
      (d) => !isInternal(d),
    );
    const ctorSigs = ctor.getConstructSignatures();
    if (
      ctorDecls.length > 0 ||
      (symbol.members?.get(ts.InternalSymbolName.Constructor) === undefined && ctorSigs.length > 0)
    ) {
      for (const s of ctorSigs) {
        const text = checker.signatureToString(s, decl, FORMAT);
        lines.push(`  constructor${text.slice(0, text.lastIndexOf(':'))}`);
      }
    }
    lines.push(...memberLines(checker, ctor, decl, true), ...memberLines(checker, instance, decl, false));
    return lines.join('\n');
  }
  if (kind === 'interface') {
    const type = checker.getDeclaredTypeOfSymbol(symbol);
    return [
      `interface ${name}${typeParams(checker, type, decl)}${heritage(checker, type, decl)}`,
      ...memberLines(checker, type, decl, false),
    ].join('\n');
  }
  if (kind === 'type') {
    const type = checker.getDeclaredTypeOfSymbol(symbol);
    const params = (decl as ts.TypeAliasDeclaration).typeParameters;
    const paramText = params ? `<${params.map((p) => p.getText()).join(', ')}>` : '';
    return `type ${name}${paramText} = ${checker.typeToString(type, decl, FORMAT | ts.TypeFormatFlags.InTypeAlias)}`;
  }
  if (kind === 'function') {
    const type = checker.getTypeOfSymbolAtLocation(symbol, decl);
    return type
      .getCallSignatures()
      .map((s) => `function ${name}${checker.signatureToString(s, decl, FORMAT)}`)
      .join('\n');
  }
  const type = checker.getTypeOfSymbolAtLocation(symbol, decl);
  return `${kind} ${name}: ${checker.typeToString(type, decl, FORMAT)}`;
}

function typeParams(checker: ts.TypeChecker, type: ts.Type, at: ts.Node): string {
  const params = (type as ts.InterfaceType).typeParameters;
  if (!params || params.length === 0) return '';
  return `<${params.map((p) => checker.typeToString(p, at, FORMAT)).join(', ')}>`;
}

function heritage(checker: ts.TypeChecker, type: ts.Type, at: ts.Node): string {
  const bases = type.isClassOrInterface() ? checker.getBaseTypes(type) : [];
  return bases.length === 0
    ? ''
    : ` extends ${bases.map((b) => checker.typeToString(b, at, FORMAT)).join(', ')}`;
}

/** The compiler options of the repository (tsconfig.json: paths to the sources). */
function compilerOptions(): ts.CompilerOptions {
  const file = join(root, 'tsconfig.json');
  const parsed = ts.parseJsonConfigFileContent(ts.readConfigFile(file, ts.sys.readFile).config, ts.sys, root);
  return { ...parsed.options, noEmit: true };
}

/** Builds every report: repo-relative report path → its text. */
export function buildApiReports(entries: readonly ApiEntry[] = apiEntries()): Map<string, string> {
  const program = ts.createProgram(
    entries.map((e) => join(root, e.source)),
    compilerOptions(),
  );
  const checker = program.getTypeChecker();
  const reports = new Map<string, string>();
  for (const entry of entries) {
    const file = program.getSourceFile(join(root, entry.source));
    const moduleSymbol = file && checker.getSymbolAtLocation(file);
    if (moduleSymbol === undefined) throw new Error(`api-report: cannot read ${entry.source}`);
    const exports = checker
      .getExportsOfModule(moduleSymbol)
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const blocks: string[] = [];
    let values = 0;
    for (const exported of exports) {
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      const typeOnly = isTypeOnlyExport(exported);
      if (!typeOnly && symbol.flags & ts.SymbolFlags.Value) values++;
      const text = describeSymbol(checker, exported.name, symbol);
      blocks.push(typeOnly && symbol.flags & ts.SymbolFlags.Value ? `${text}\n  (type only)` : text);
    }
    const header = [
      `# API report: \`${entry.specifier}\``,
      '',
      `Generated by \`npm run api:report\` from \`${entry.source}\`; do not edit by hand.`,
      `${exports.length} names (${values} runtime values, ${exports.length - values} types).`,
      '',
      '```ts',
    ];
    // A property keyed by a unique symbol prints as `__@NAME@<symbol id>`; the id moves whenever any
    // file is added to the program, so the report names the key as `[NAME]` (what the source writes).
    const body = blocks.join('\n\n').replace(/__@(\w+)@\d+/g, '[$1]');
    reports.set(entry.report, [...header, body, '```', ''].join('\n'));
  }
  return reports;
}

function isTypeOnlyExport(symbol: ts.Symbol): boolean {
  return (symbol.declarations ?? []).some(
    (d) =>
      (ts.isExportSpecifier(d) && (d.isTypeOnly || d.parent.parent.isTypeOnly)) ||
      (ts.isTypeOnlyImportOrExportDeclaration?.(d) ?? false),
  );
}

/** Writes every report, and removes stale ones. */
export function writeApiReports(): string[] {
  const reports = buildApiReports();
  for (const dir of ['packages/sdk/api', 'packages/dev/api']) {
    mkdirSync(join(root, dir), { recursive: true });
    for (const f of readdirSync(join(root, dir))) {
      if (!reports.has(join(dir, f))) rmSync(join(root, dir, f));
    }
  }
  for (const [file, text] of reports) writeFileSync(join(root, file), text);
  return [...reports.keys()];
}

if (process.argv[1] !== undefined && relative(process.argv[1], fileURLToPath(import.meta.url)) === '') {
  const started = Date.now();
  for (const file of writeApiReports()) console.log(`api-report: wrote ${file}`);
  console.log(`api-report: done in ${Date.now() - started} ms`);
}

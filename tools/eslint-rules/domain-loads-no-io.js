import { readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import path from "node:path";
import ts from "typescript";

/** Node's modules by their bare names (`fs`, `child_process/...`); hashing and address arithmetic are not I/O. */
export const NODE_IO_MODULES = builtinModules.filter(
  (m) => !m.startsWith("_") && m !== "crypto" && m !== "net",
);
/** Node's modules by their `node:` names, hashing and address arithmetic left out. */
export const NODE_IO_PATTERN = "^node:(?!crypto$|net$)";
export const NODE_BARE_IO_PATTERN = `^(${NODE_IO_MODULES.map((m) => m.replace(/[/]/g, "\\/")).join("|")})(\\/|$)`;
/** The libraries that talk to the world: the bus, the databases, servers, clients, logs and telemetry. */
export const IO_PACKAGE_PATTERN =
  "^(nats|mongodb|koa|@koa/.*|@grpc/.*|pino|prom-client|@opentelemetry/.*|@octokit/.*|undici)$";

const IO = [NODE_IO_PATTERN, NODE_BARE_IO_PATTERN, IO_PACKAGE_PATTERN].map((p) => new RegExp(p));
const isIo = (specifier) => IO.some((re) => re.test(specifier));

/** The specifiers a module loads when it is loaded: its imports and re-exports, type-only ones left out. */
function runtimeSpecifiers(file) {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, false);
  const specifiers = [];
  for (const statement of source.statements) {
    const spec = statement.moduleSpecifier;
    if (!spec || !ts.isStringLiteral(spec)) continue;
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      const named = clause?.namedBindings;
      const onlyTypes =
        clause?.isTypeOnly ||
        (clause &&
          !clause.name &&
          named &&
          ts.isNamedImports(named) &&
          named.elements.length > 0 &&
          named.elements.every((e) => e.isTypeOnly));
      if (!onlyTypes) specifiers.push(spec.text);
    } else if (ts.isExportDeclaration(statement)) {
      const named = statement.exportClause;
      const onlyTypes =
        statement.isTypeOnly ||
        (named &&
          ts.isNamedExports(named) &&
          named.elements.length > 0 &&
          named.elements.every((e) => e.isTypeOnly));
      if (!onlyTypes) specifiers.push(spec.text);
    }
  }
  return specifiers;
}

/**
 * DESIGN "Layout": domain/ loads no I/O, not even through a barrel. Follows what a domain file loads (imports and
 * re-exports, through other packages' entry points, type-only ones left out) and reports an import whose modules
 * load an I/O library; the direct imports are no-restricted-imports' to refuse. `resolve` is the resolver the
 * import-x rules use (so workspace packages resolve to their sources).
 */
export function domainLoadsNoIo(resolve) {
  /** file -> the chain of specifiers from it to an I/O library, or null; undefined while being walked. */
  const reaches = new Map();
  const walk = (file) => {
    if (reaches.has(file)) return reaches.get(file) ?? null;
    reaches.set(file, undefined);
    let found = null;
    for (const specifier of runtimeSpecifiers(file)) {
      const chain = reachedFrom(specifier, file);
      if (chain) {
        found = chain;
        break;
      }
    }
    reaches.set(file, found);
    return found;
  };
  const reachedFrom = (specifier, file) => {
    if (isIo(specifier)) return [specifier];
    const resolved = resolve(specifier, file);
    // Ours only: a library that is not an I/O library is computation (zod, mingo...).
    if (!resolved.found || !resolved.path || resolved.path.split(path.sep).includes("node_modules"))
      return null;
    if (!/\.(ts|tsx|js|mjs)$/.test(resolved.path)) return null;
    const chain = walk(resolved.path);
    return chain && [specifier, ...chain];
  };
  return {
    meta: {
      type: "problem",
      schema: [],
      messages: {
        loadsIo:
          "domain/ is pure, but this import loads {{io}} ({{chain}}): import what it needs from a module without I/O",
      },
    },
    create(context) {
      const file = context.physicalFilename;
      const check = (node) => {
        if (node.importKind === "type" || node.exportKind === "type") return;
        if (
          node.specifiers?.length > 0 &&
          node.specifiers.every((s) => s.importKind === "type" || s.exportKind === "type")
        )
          return;
        const specifier = node.source?.value;
        if (typeof specifier !== "string" || isIo(specifier)) return;
        const chain = reachedFrom(specifier, file);
        if (chain)
          context.report({
            node: node.source,
            messageId: "loadsIo",
            data: { io: chain.at(-1), chain: chain.join(" → ") },
          });
      };
      return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check };
    },
  };
}

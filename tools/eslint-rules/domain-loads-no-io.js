import { builtinModules } from "node:module";
import { isTypeOnlyNode, moduleImports, ownSource } from "./module-imports.js";

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
    for (const { specifier, typeOnly } of moduleImports(file)) {
      if (typeOnly) continue;
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
    // Ours only: a library that is not an I/O library is computation (zod, mingo...).
    const source = ownSource(resolve, specifier, file);
    if (source === undefined) return null;
    const chain = walk(source);
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
        if (isTypeOnlyNode(node)) return;
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

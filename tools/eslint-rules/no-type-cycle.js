import { isTypeOnlyNode, moduleImports, ownSource } from "./module-imports.js";

/**
 * No two modules depend on each other, not even through types alone. import-x/no-cycle refuses cycles of imports
 * that load modules; it leaves type-only imports out by design (they are erased), so a cycle that a type-only
 * import closes is this rule's: reported on that import. `resolve` is the import-x rules' resolver.
 */
export function noTypeCycle(resolve) {
  /** file -> the project's files it imports, types included. */
  const edges = new Map();
  const importsOf = (file) => {
    let found = edges.get(file);
    if (found === undefined) {
      found = moduleImports(file)
        .map(({ specifier }) => ownSource(resolve, specifier, file))
        .filter((target) => target !== undefined);
      edges.set(file, found);
    }
    return found;
  };
  /** A path of files from `start` back to `goal`, or undefined. */
  const pathBack = (start, goal) => {
    const seen = new Set([start]);
    const stack = [[start, [start]]];
    while (stack.length > 0) {
      const [file, route] = stack.pop();
      for (const next of importsOf(file)) {
        if (next === goal) return route;
        if (!seen.has(next)) {
          seen.add(next);
          stack.push([next, [...route, next]]);
        }
      }
    }
    return undefined;
  };
  return {
    meta: {
      type: "problem",
      schema: [],
      messages: {
        typeCycle:
          "this type import closes a dependency cycle ({{route}}): move the shared type to a module both can import",
      },
    },
    create(context) {
      const file = context.physicalFilename;
      const check = (node) => {
        const specifier = node.source?.value;
        if (typeof specifier !== "string" || !isTypeOnlyNode(node)) return;
        const target = ownSource(resolve, specifier, file);
        const route = target && pathBack(target, file);
        if (route) {
          const cwd = context.cwd;
          const names = [file, ...route, file].map((f) =>
            f.startsWith(`${cwd}/`) ? f.slice(cwd.length + 1) : f,
          );
          context.report({ node: node.source, messageId: "typeCycle", data: { route: names.join(" → ") } });
        }
      };
      return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check };
    },
  };
}

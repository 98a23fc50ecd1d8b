import { readFileSync } from "node:fs";
import path from "node:path";
import { createNodeResolver } from "eslint-plugin-import-x";
import ts from "typescript";

/**
 * Resolves imports as tsc does here: NodeNext `.js` specifiers name `.ts`/`.tsx` sources, and workspace packages
 * resolve through their `mainline-source` export condition to sources.
 */
export function createMainlineResolver() {
  return createNodeResolver({
    extensions: [".ts", ".tsx", ".js", ".mjs", ".json"],
    extensionAlias: { ".js": [".ts", ".tsx", ".js"] },
    conditionNames: ["mainline-source", "types", "import", "default"],
  });
}

/** The import and re-export declarations of a module, each with whether it loads anything (type-only ones don't). */
export function moduleImports(file) {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, false);
  const imports = [];
  for (const statement of source.statements) {
    const spec = statement.moduleSpecifier;
    if (!spec || !ts.isStringLiteral(spec)) continue;
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      const named = clause?.namedBindings;
      const typeOnly = Boolean(
        clause?.isTypeOnly ||
        (clause &&
          !clause.name &&
          named &&
          ts.isNamedImports(named) &&
          named.elements.length > 0 &&
          named.elements.every((e) => e.isTypeOnly)),
      );
      imports.push({ specifier: spec.text, typeOnly });
    } else if (ts.isExportDeclaration(statement)) {
      const named = statement.exportClause;
      const typeOnly = Boolean(
        statement.isTypeOnly ||
        (named &&
          ts.isNamedExports(named) &&
          named.elements.length > 0 &&
          named.elements.every((e) => e.isTypeOnly)),
      );
      imports.push({ specifier: spec.text, typeOnly });
    }
  }
  return imports;
}

/** Whether an ESLint import/export node loads nothing (`import type`, or every specifier a type). */
export function isTypeOnlyNode(node) {
  if (node.importKind === "type" || node.exportKind === "type") return true;
  return (
    node.specifiers?.length > 0 &&
    node.specifiers.every((s) => s.importKind === "type" || s.exportKind === "type")
  );
}

/** The project's own source file a specifier names, or undefined (a library, a builtin, a file not found). */
export function ownSource(resolve, specifier, fromFile) {
  const resolved = resolve(specifier, fromFile);
  if (!resolved.found || !resolved.path || resolved.path.split(path.sep).includes("node_modules"))
    return undefined;
  return /\.(ts|tsx|js|mjs)$/.test(resolved.path) ? resolved.path : undefined;
}

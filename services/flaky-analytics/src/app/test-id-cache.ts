import { testId } from "../domain/index.js";
import type { RepositoryRef } from "../domain/index.js";

/** What tells two tests of one repository apart, as a JUnit case gives it. */
export interface TestFields {
  file?: string | undefined;
  classname?: string | undefined;
  parent?: string | undefined;
  name: string;
}

/** Enough for the largest suites of many repositories; past it the cache starts over. */
const MAX_ENTRIES = 500_000;

/**
 * Test ids already computed, per repository and variant. The same tests come back in every upload
 * and a UUID v5 costs a SHA-1 per result; the key here is a plain concatenation, cheap to build.
 */
export class TestIdCache {
  private readonly scopes = new Map<string, Map<string, string>>();
  private entries = 0;

  /** The ids of one repository's tests under one variant: look-ups for one upload. */
  scope(org: string, repo: RepositoryRef, repoKey: string, variant: string): (test: TestFields) => string {
    const scopeKey = `${org}\u0000${repoKey}\u0000${variant}`;
    let scope = this.scopes.get(scopeKey);
    if (scope === undefined) {
      scope = new Map();
      this.scopes.set(scopeKey, scope);
    }
    const ids = scope;
    return ({ file = "", classname = "", parent = "", name }) => {
      const identity = () => testId({ org, repo, file, classname, parent, name, variant });
      // NUL separates the parts; a part holding one (a char reference in the report) skips the cache.
      if (
        file.includes("\u0000") ||
        classname.includes("\u0000") ||
        parent.includes("\u0000") ||
        name.includes("\u0000")
      ) {
        return identity();
      }
      const key = `${file}\u0000${classname}\u0000${parent}\u0000${name}`;
      let id = ids.get(key);
      if (id === undefined) {
        id = identity();
        if (this.entries >= MAX_ENTRIES) this.clear();
        this.scopes.set(scopeKey, ids);
        ids.set(key, id);
        this.entries++;
      }
      return id;
    };
  }

  private clear(): void {
    for (const scope of this.scopes.values()) scope.clear();
    this.scopes.clear();
    this.entries = 0;
  }
}

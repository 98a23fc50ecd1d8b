import { Codeowners } from "../domain/index.js";

const EMPTY = Codeowners.parse("");
const MAX_ENTRIES = 256;

/**
 * Parsed CODEOWNERS files by content. Owners are resolved at read time (a new CODEOWNERS applies
 * to every test at once), so the same file is matched on every listing; parse it once.
 */
export class CodeownersCache {
  private readonly parsed = new Map<string, Codeowners>();

  of(content: string | undefined): Codeowners {
    if (!content) return EMPTY;
    let found = this.parsed.get(content);
    if (found === undefined) {
      if (this.parsed.size >= MAX_ENTRIES) this.parsed.clear();
      found = Codeowners.parse(content);
      this.parsed.set(content, found);
    }
    return found;
  }
}

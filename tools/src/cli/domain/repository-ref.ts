import { CliError } from "../cli-error.js";
import type { RepositoryRef } from "../api/api-types.js";

/**
 * Reads `--repo` as people write it: `host/owner/name`, or the repository's web URL (with or without
 * `.git`), since that is what they have at hand.
 */
export function parseRepositoryRef(text: string, source = "--repo"): RepositoryRef {
  const trimmed = text.trim();
  const path = trimmed
    .replace(/^https?:\/\//, "")
    .replace(/\.git$/, "")
    .replace(/\/+$/, "");
  const parts = path.split("/");
  if (parts.length !== 3 || parts.some((part) => part.trim() === "" || /\s/.test(part))) {
    throw new CliError(`${source} must be host/owner/name, e.g. github.com/acme/app (got "${text}")`);
  }
  const [host, owner, name] = parts as [string, string, string];
  return { host, owner, name };
}

export function formatRepositoryRef(repo: RepositoryRef): string {
  return `${repo.host}/${repo.owner}/${repo.name}`;
}

import {
  formatRepository,
  parseRepository,
  REPOSITORY_FORMAT_RULE,
  type RepositoryRef,
} from "@mainline/contract";
import { CliError } from "../cli-error.js";

/** Reads `--repo` with the contract's one rule: `host/owner/name` or the repository's web URL. */
export function parseRepositoryRef(text: string, source = "--repo"): RepositoryRef {
  const repo = parseRepository(text);
  if (repo === undefined) throw new CliError(`${source} must be ${REPOSITORY_FORMAT_RULE} (got "${text}")`);
  return repo;
}

export const formatRepositoryRef = formatRepository;

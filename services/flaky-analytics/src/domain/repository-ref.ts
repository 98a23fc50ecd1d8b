// One definition for every service: how a repository is written and which repository it is.
export { canonicalRepository, type RepositoryRef } from "@mainline/contract";

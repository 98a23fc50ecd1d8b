import { canonicalRepository } from "../domain/index.js";
import type { RepositoryRef } from "../domain/index.js";

/** The URLs a failing test record shows; Mainline's own pages live under its public base URL. */
export class Links {
  private readonly base: string;

  constructor(publicBaseUrl: string) {
    this.base = publicBaseUrl.replace(/\/+$/, "");
  }

  /** The repository on its code host (https://github.com/acme/widgets). */
  repository(repo: RepositoryRef): string {
    const { host, owner, name } = canonicalRepository(repo);
    return `https://${host}/${pathOf(owner)}/${encodeURIComponent(name)}`;
  }

  /** The test's page in Mainline. */
  test(org: string, repo: RepositoryRef, id: string): string {
    const { host, owner, name } = canonicalRepository(repo);
    return (
      `${this.base}/flaky-tests/${encodeURIComponent(org)}/${encodeURIComponent(host)}/` +
      `${pathOf(owner)}/${encodeURIComponent(name)}/tests/${id}`
    );
  }
}

/** Owners of nested groups ("org/team/project") keep their slashes as path segments. */
function pathOf(owner: string): string {
  return owner.split("/").map(encodeURIComponent).join("/");
}

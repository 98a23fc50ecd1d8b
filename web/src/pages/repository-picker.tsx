import { api, parseRepoKey, repoKey, type RepoRef } from "../api.js";

/** The organisation's repositories that have test results (POST /v1/flaky-tests/list-repositories), as keys. */
export const testedRepositories = (): Promise<string[]> =>
  api<{ repositories: RepoRef[] }>("/flaky-tests/list-repositories").then((r) => r.repositories.map(repoKey));

/** How flaky-analytics spells a repository: trimmed, the host in lower case (owner and name keep their case). */
export function canonicalKey(key: string): string | undefined {
  const ref = parseRepoKey(key.trim());
  return ref && repoKey({ ...ref, host: ref.host.toLowerCase() });
}

/** A choice among the organisation's repositories: people pick one rather than type (and mistype) its key. */
export function RepositoryPicker(props: {
  repositories: string[] | undefined;
  value: string;
  onChange: (key: string) => void;
}) {
  const { repositories, value } = props;
  return (
    <>
      <label for="repo">Repository</label>
      <select
        id="repo"
        required
        value={repositories?.includes(value) ? value : ""}
        onChange={(e) => props.onChange(e.currentTarget.value)}
      >
        <option value="" disabled>
          {repositories === undefined
            ? "Loading repositories…"
            : repositories.length === 0
              ? "No repository has test results yet"
              : "Choose a repository"}
        </option>
        {repositories?.map((key) => (
          <option key={key} value={key}>
            {key}
          </option>
        ))}
      </select>
    </>
  );
}

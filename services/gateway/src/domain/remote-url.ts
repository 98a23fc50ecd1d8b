/**
 * Which git remotes a repository connection may name. git takes much more than URLs: `ext::<command>` runs a
 * command, `fd::` reads a file descriptor, and an argument that starts with "-" is an option. Only the
 * transports that fetch over a network, and local paths, are allowed; helper transports (`<name>::`) never.
 * Local paths and file:// serve development and tests (a remote on the same disk); see README "Limits".
 */
export const MAX_REMOTE_URL_LENGTH = 2048;

const SCHEMES = ["https", "http", "ssh", "git", "file"] as const;
const SCP_LIKE = /^(?:[A-Za-z0-9._~%+-]+@)?[A-Za-z0-9.-]+(?:\[[0-9A-Fa-f:.]+\])?:(?!\/\/)[^\s]+$/;

export function remoteUrlProblem(url: string): string | null {
  const rule = `must be an ${SCHEMES.join(", ")} URL, user@host:path, or a local path`;
  if (url === "") return "must not be empty";
  if (url.length > MAX_REMOTE_URL_LENGTH) return `must be at most ${MAX_REMOTE_URL_LENGTH} characters`;
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x20\x7f]/.test(url)) return "must not contain spaces or control characters";
  if (url.startsWith("-")) return 'must not begin with "-"';
  if (/^[A-Za-z0-9+.-]+::/.test(url)) return `${rule}; git helper transports (ext::, fd::, ...) are refused`;
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(url)?.[1]?.toLowerCase();
  if (scheme !== undefined) {
    if (!(SCHEMES as readonly string[]).includes(scheme)) return rule;
    try {
      const parsed = new URL(url);
      if (scheme !== "file" && parsed.hostname === "") return `${rule}; the URL names no host`;
      // ssh would read a host that begins with "-" as an option (CVE-2017-1000117).
      if (parsed.hostname.startsWith("-") || parsed.username.startsWith("-"))
        return 'must not name a host or user that begins with "-"';
    } catch {
      return rule;
    }
    return null;
  }
  if (url.startsWith("/") || url.startsWith("./") || url.startsWith("../")) return null;
  return SCP_LIKE.test(url) ? null : rule;
}

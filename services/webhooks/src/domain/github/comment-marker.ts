/**
 * A hidden marker in each comment Mainline posts, naming the call that posted it. A call retried after a crash
 * between GitHub's answer and our record looks for its marker first, so a comment is never posted twice.
 */
export function withMarker(body: string, key: string): string {
  return `${body}\n\n<!-- mainline:${markerKey(key)} -->`;
}

export function hasMarker(body: string | null | undefined, key: string): boolean {
  return (body ?? "").includes(`<!-- mainline:${markerKey(key)} -->`);
}

/** Keys are ours (event ids, delivery ids), but a marker must not be able to end the HTML comment early. */
function markerKey(key: string): string {
  return key.replace(/[^A-Za-z0-9_.:-]/g, "_");
}

import { useEffect, useState } from "preact/hooks";
import { getText } from "../api.js";

/** Lines of the output shown in the page; the whole stored tail (at most 1 MiB) is one link away. */
const TAIL_LINES = 120;

/**
 * Where a run's output lives: this gateway's /v1/test-runs/{id}/output (a COMMAND run: the page reads it with its
 * session cookie) or an external CI's page (an EXTERNAL run: only a link, the page cannot read it).
 */
export function outputPath(url: string): string | undefined {
  try {
    const parsed = new URL(url, location.origin);
    // The gateway resolves the link against MAINLINE_PUBLIC_URL, which may name another host than the one this
    // page was loaded from (a proxy): the path is what this gateway answers, the cookie only goes same-origin.
    return /^\/v1\/test-runs\/[^/]+\/output$/.test(parsed.pathname) ? parsed.pathname : undefined;
  } catch {
    return undefined;
  }
}

export function tail(text: string, lines = TAIL_LINES): { text: string; cut: number } {
  const all = text.replace(/\n$/, "").split("\n");
  const cut = Math.max(0, all.length - lines);
  return { text: all.slice(cut).join("\n"), cut };
}

/** The run's output: the tail in a <pre> for runs this gateway stores, else a link to the CI's details. */
export function RunOutput({ url }: { url: string }) {
  const path = outputPath(url);
  const [output, setOutput] = useState<{ text?: string; error?: string }>({});
  useEffect(() => {
    if (!path) return;
    let closed = false;
    setOutput({});
    getText(path).then(
      (text) => !closed && setOutput({ text }),
      (e: Error) => !closed && setOutput({ error: e.message }),
    );
    return () => void (closed = true);
  }, [path]);
  if (!path)
    return (
      <p>
        <a href={url} rel="noreferrer" target="_blank">
          The CI's details of the failed run
        </a>
      </p>
    );
  const shown = output.text !== undefined ? tail(output.text) : undefined;
  return (
    <>
      <p>
        <a href={path} target="_blank">
          The run's output
        </a>
        {shown && shown.cut > 0 && ` (the last ${TAIL_LINES} lines below)`}
      </p>
      {output.error && (
        <p role="alert" class="error">
          {output.error}
        </p>
      )}
      {!shown && !output.error && <p>Reading the output…</p>}
      {shown && (
        <pre id="run-output" class="output" tabIndex={0} aria-label="The end of the run's output">
          {shown.text || "(the run wrote nothing)"}
        </pre>
      )}
    </>
  );
}

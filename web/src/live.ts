import { useEffect, useRef, useState } from "preact/hooks";

export interface Loaded<T> {
  data: T | undefined;
  error: string | undefined;
  /** When the data was last read (for "updated … ago"). */
  at: number | undefined;
  /** Read again now (after an action whose change may not come as a lifecycle event). */
  reload: () => void;
}

/**
 * Loads with `load`, then loads again whenever the gateway's event stream (/ui/events, fed by the lifecycle
 * events) reports a change for `filter`. Changes arriving while a load runs coalesce into one more load, so a
 * burst of events never queues a burst of reads.
 */
export function useLive<T>(
  load: () => Promise<T>,
  filter: Record<string, string> | undefined,
  key: string,
): Loaded<T> {
  const [state, setState] = useState<Omit<Loaded<T>, "reload">>({
    data: undefined,
    error: undefined,
    at: undefined,
  });
  const loadRef = useRef(load);
  loadRef.current = load;
  const reloadRef = useRef<() => void>(() => undefined);
  useEffect(() => {
    let running = false;
    let again = false;
    let closed = false;
    let failures = 0;
    let retry: ReturnType<typeof setTimeout> | undefined;
    const run = async () => {
      if (running) {
        again = true;
        return;
      }
      running = true;
      clearTimeout(retry);
      do {
        again = false;
        try {
          const data = await loadRef.current();
          failures = 0;
          if (!closed) setState({ data, error: undefined, at: Date.now() });
        } catch (error) {
          failures++;
          if (!closed) setState((s) => ({ ...s, error: (error as Error).message }));
        }
      } while (again && !closed);
      running = false;
      // A failed read (the gateway busy or restarting) is tried again: the change it missed may be the last one
      // an event announces, and the page must not stay on what it showed before. A refusal the user must act on
      // (signed out) ends the page's session elsewhere, so the retries stop with it.
      if (failures > 0 && !closed)
        retry = setTimeout(() => void run(), Math.min(15_000, 500 * 2 ** failures));
    };
    reloadRef.current = () => void run();
    void run();
    if (!filter) {
      return () => {
        closed = true;
        clearTimeout(retry);
      };
    }
    let source: EventSource | undefined;
    let reopen: ReturnType<typeof setTimeout> | undefined;
    const subscribe = () => {
      const s = new EventSource(`/ui/events?${new URLSearchParams(filter).toString()}`);
      source = s;
      s.addEventListener("change", () => void run());
      // The session ended (signed out elsewhere, its token revoked, expired): the read is refused, and the page
      // asks to sign in again.
      s.addEventListener("ended", () => void run());
      // Events may have been missed before the stream (re)opened: read again once it is open.
      s.addEventListener("open", () => void run());
      // The browser retries a dropped stream by itself, but gives up for good when an attempt is answered with an
      // error status (a gateway restarting or overloaded): open a new one then, or the page would stop updating.
      s.addEventListener("error", () => {
        if (s.readyState !== EventSource.CLOSED || closed) return;
        reopen = setTimeout(subscribe, 2_000);
      });
    };
    subscribe();
    return () => {
      closed = true;
      clearTimeout(retry);
      clearTimeout(reopen);
      source?.close();
    };
  }, [key]);
  return { ...state, reload: () => reloadRef.current() };
}

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
    const run = async () => {
      if (running) {
        again = true;
        return;
      }
      running = true;
      do {
        again = false;
        try {
          const data = await loadRef.current();
          if (!closed) setState({ data, error: undefined, at: Date.now() });
        } catch (error) {
          if (!closed) setState((s) => ({ ...s, error: (error as Error).message }));
        }
      } while (again && !closed);
      running = false;
    };
    reloadRef.current = () => void run();
    void run();
    if (!filter) return () => void (closed = true);
    const source = new EventSource(`/ui/events?${new URLSearchParams(filter).toString()}`);
    source.addEventListener("change", () => void run());
    // After a reconnect events may have been missed: read again.
    source.addEventListener("open", () => void run());
    return () => {
      closed = true;
      source.close();
    };
  }, [key]);
  return { ...state, reload: () => reloadRef.current() };
}

// Hooks shared by the popup and the options page.
import { useCallback, useEffect, useRef, useState } from 'react';
import { type EventBroadcast, isRuntimeMessage } from '../lib/runtime-messages';

export type Resource<T> =
  | { status: 'loading'; data?: undefined; error?: undefined }
  | { status: 'ready'; data: T; error?: undefined }
  | { status: 'error'; data?: undefined; error: unknown };

/**
 * Loads `load(signal)` on mount and whenever `reload()` is called. A reload keeps showing the
 * previous data until the new answer is in (no flash of the loading state); a failed reload
 * after a success keeps the data and reports the error through `refreshError`.
 */
export function useResource<T>(load: (signal: AbortSignal) => Promise<T>) {
  const [state, setState] = useState<Resource<T>>({ status: 'loading' });
  const [refreshError, setRefreshError] = useState<unknown>(null);
  const [refreshing, setRefreshing] = useState(false);
  const loadRef = useRef(load);
  loadRef.current = load;
  const controller = useRef<AbortController | null>(null);

  const run = useCallback(async () => {
    controller.current?.abort();
    const c = new AbortController();
    controller.current = c;
    setRefreshing(true);
    try {
      const data = await loadRef.current(c.signal);
      if (c.signal.aborted) return;
      setState({ status: 'ready', data });
      setRefreshError(null);
    } catch (error) {
      if (c.signal.aborted) return;
      setState((prev) => (prev.status === 'ready' ? prev : { status: 'error', error }));
      setRefreshError(error);
    } finally {
      if (controller.current === c) setRefreshing(false);
    }
  }, []);

  useEffect(() => {
    void run();
    return () => controller.current?.abort();
  }, [run]);

  return { state, reload: run, refreshing, refreshError };
}

/** The current time, re-read every `ms` while `active`. */
export function useNow(ms = 1000, active = true): number {
  const [now, setNow] = useState(() => Date.now());
  // Turning active, read the clock during this render (React's adjust-state-while-rendering
  // pattern): the effect below would only do so after a first paint of the time from when it
  // last ticked (a countdown would show a held action's first second as "10:01 left").
  const [wasActive, setWasActive] = useState(active);
  if (active !== wasActive) {
    setWasActive(active);
    if (active) setNow(Date.now());
  }
  useEffect(() => {
    if (!active) return;
    setNow(Date.now());
    const t = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(t);
  }, [ms, active]);
  return now;
}

/** Calls `listener` for each events-stream item the background worker forwards. */
export function usePresenceEvents(listener: (event: EventBroadcast['event']) => void): void {
  const ref = useRef(listener);
  ref.current = listener;
  useEffect(() => {
    const handler = (message: unknown) => {
      if (isRuntimeMessage(message) && message.type === 'presence:event') ref.current(message.event);
      return false;
    };
    chrome.runtime.onMessage.addListener(handler);
    return () => chrome.runtime.onMessage.removeListener(handler);
  }, []);
}

import { useCallback, useEffect, useRef, useState, type DependencyList } from 'react';

/** State of a loaded resource. `data` stays while reloading, so pages do not flicker. */
export interface Resource<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => Promise<void>;
  setData: (update: T | ((current: T | undefined) => T)) => void;
}

/** Loads `load()` on mount and whenever `deps` change; ignores answers that arrive out of date. */
export function useResource<T>(load: () => Promise<T>, deps: DependencyList): Resource<T> {
  const [data, setDataState] = useState<T | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const [loading, setLoading] = useState(true);
  const generation = useRef(0);
  const loader = useCallback(load, deps);

  const reload = useCallback(async () => {
    const mine = ++generation.current;
    setLoading(true);
    try {
      const value = await loader();
      if (mine !== generation.current) return;
      setDataState(() => value);
      setError(undefined);
    } catch (err) {
      if (mine === generation.current) setError(err);
    } finally {
      if (mine === generation.current) setLoading(false);
    }
  }, [loader]);

  useEffect(() => {
    void reload();
    return () => {
      generation.current++;
    };
  }, [reload]);

  const setData = useCallback((update: T | ((current: T | undefined) => T)) => {
    setDataState((cur) => (typeof update === 'function' ? (update as (c: T | undefined) => T)(cur) : update));
  }, []);

  return { data, error, loading, reload, setData };
}

/** Calls `fn` every `ms` while `active`; stops on unmount. */
export function useInterval(fn: () => void, ms: number, active: boolean): void {
  const saved = useRef(fn);
  saved.current = fn;
  useEffect(() => {
    if (!active) return;
    const id = window.setInterval(() => saved.current(), ms);
    return () => window.clearInterval(id);
  }, [ms, active]);
}

/** Sets the document title: "<page> · Pushhub". */
export function useTitle(title: string): void {
  useEffect(() => {
    document.title = title ? `${title} · Pushhub` : 'Pushhub';
  }, [title]);
}

// Loads one API resource for a page: its data, the API's error, and a reload after changes.
import { useCallback, useEffect, useState } from "react";
import { ApiFailure, api } from "./api";

export interface Loaded<T> {
  data: T | undefined;
  error: ApiFailure | undefined;
  loading: boolean;
  reload(): void;
}

export function useApi<T>(path: string | null): Loaded<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<ApiFailure>();
  const [loading, setLoading] = useState(path !== null);
  const [tick, setTick] = useState(0);

  // biome-ignore lint/correctness/useExhaustiveDependencies: tick is how reload() asks again for the same path.
  useEffect(() => {
    if (path === null) return;
    let live = true;
    setLoading(true);
    setError(undefined);
    api<T>(path)
      .then((d) => live && setData(d))
      .catch((e: unknown) => live && setError(e instanceof ApiFailure ? e : new ApiFailure(0, "CLIENT", String(e))))
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, [path, tick]);

  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data, error, loading, reload };
}

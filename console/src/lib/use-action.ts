// Runs a user's action (create, sync, acknowledge…) and keeps the API's refusal to show it.
import { useCallback, useState } from "react";
import { ApiFailure } from "./api";

export function useAction(): { failure: ApiFailure | undefined; busy: boolean; run(action: () => Promise<void>): Promise<void> } {
  const [failure, setFailure] = useState<ApiFailure>();
  const [busy, setBusy] = useState(false);
  const run = useCallback(async (action: () => Promise<void>) => {
    setFailure(undefined);
    setBusy(true);
    try {
      await action();
    } catch (err) {
      if (err instanceof ApiFailure) setFailure(err);
      else throw err;
    } finally {
      setBusy(false);
    }
  }, []);
  return { failure, busy, run };
}

// Placeholder until the pipelines merge; not on main.
import type { Env } from "../env";
import type { MessageHandler } from "./drain";
export function messageHandlerFor(_env: Env, _orgId: string): MessageHandler {
  return async () => {
    throw new Error("not merged");
  };
}

/**
 * A manager's signals and exit through `node:process`, for the Node and Bun adapters (Bun runs
 * this Node API). Internal.
 * @module
 */
import process from "node:process";
import type { ManagerPlatform } from "../../controller/manager/_run_manager.ts";

/** A {@linkcode ManagerPlatform}'s signals and exit, through `process`. */
export const processSignals: Pick<ManagerPlatform, "onSignal" | "exit"> = {
  onSignal(signal, listener) {
    process.on(signal, listener);
    return () => void process.off(signal, listener);
  },
  exit(code) {
    process.exit(code);
  },
};

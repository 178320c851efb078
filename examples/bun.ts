/**
 * kinformer on Bun: watch ConfigMaps and print every change.
 *
 * ```sh
 * # Against a simulated cluster served in this process with Bun.serve (with some churn):
 * bun --conditions=kinformer-source examples/bun.ts --events 5
 * # Against a real cluster through `kubectl proxy` (http://127.0.0.1:8001):
 * bun --conditions=kinformer-source examples/bun.ts --server http://127.0.0.1:8001 --namespace default
 * ```
 *
 * Flags: `--server URL` (default: an in-process simulated cluster), `--token TOKEN`,
 * `--namespace NS` (default: all), `--events N` (stop after N changes after the sync),
 * `--seconds S` (stop after S seconds, default 10), `--rate R` (simulated changes per second,
 * default 10). Exits 0 once stopped after a sync, 1 if the informer never synced.
 *
 * The watching and printing is shared with `examples/deno.ts` (`examples/_watch_and_print.ts`);
 * this file is the Bun glue.
 *
 * Written as your code would be: it imports `@kinformer/kinformer` by name. In your project,
 * install the package (`bun add`, today the tarball `npm pack` makes: see the README's Install);
 * in this checkout, `--conditions=kinformer-source` resolves the name to `src/`.
 * @module
 */
import process from "node:process";
import { serve } from "@kinformer/kinformer/testing/bun";
import { parseArgs, watchAndPrint } from "./_watch_and_print.ts";

// The simulated cluster is served with Bun.serve, which sends a response head only with the
// first body chunk (oven-sh/bun#33660); the churn keeps watches busy, so that does not show.
const synced = await watchAndPrint(parseArgs(process.argv.slice(2)), {
  name: `Bun ${process.versions.bun}`,
  serve,
  onInterrupt: (listener) => {
    process.once("SIGINT", listener);
    return () => process.off("SIGINT", listener);
  },
});
process.exit(synced ? 0 : 1);

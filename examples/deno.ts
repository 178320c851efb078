/**
 * kinformer on Deno: watch ConfigMaps and print every change.
 *
 * ```sh
 * # Against a simulated cluster served in this process with Deno.serve (with some churn):
 * deno run --allow-net examples/deno.ts --events 5
 * # Against a real cluster through `kubectl proxy` (http://127.0.0.1:8001):
 * deno run --allow-net examples/deno.ts --server http://127.0.0.1:8001 --namespace default
 * ```
 *
 * Flags: `--server URL` (default: an in-process simulated cluster), `--token TOKEN`,
 * `--namespace NS` (default: all), `--events N` (stop after N changes after the sync),
 * `--seconds S` (stop after S seconds, default 10), `--rate R` (simulated changes per second,
 * default 10). Exits 0 once stopped after a sync, 1 if the informer never synced.
 *
 * The watching and printing is shared with `examples/bun.ts` (`examples/_watch_and_print.ts`);
 * this file is the Deno glue.
 *
 * Written as your code would be: it imports `@kinformer/kinformer` by name. In your project,
 * install the package (see the README's Install); in this checkout, Deno resolves the name
 * through `deno.json`.
 * @module
 */
import { serve } from "@kinformer/kinformer/testing/deno";
import { parseArgs, watchAndPrint } from "./_watch_and_print.ts";

const synced = await watchAndPrint(parseArgs(Deno.args), {
  name: `Deno ${Deno.version.deno}`,
  serve,
  onInterrupt: (listener) => {
    Deno.addSignalListener("SIGINT", listener);
    return () => Deno.removeSignalListener("SIGINT", listener);
  },
});
Deno.exit(synced ? 0 : 1);

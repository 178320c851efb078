// The seeded soak (tests/_soak.ts) on a fixed set of seeds; `npm run soak -- --seeds N` runs more.
import { test } from "node:test";
import { soak } from "../_soak.ts";

for (const [seed, mode] of [[1, "list"], [2, "stream"], [3, "list"], [4, "stream"]] as const) {
  test(`soak (${mode} mode, seed ${seed}): faults and mutations leave store and listeners exact, requests bounded`, async () => {
    await soak(seed, mode);
  });
}

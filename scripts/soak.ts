// Runs the seeded soak (tests/_soak.ts) over many seeds, alternating list and stream modes:
//   npm run soak -- --seeds 50 [--from 100]
// Prints one line per failing seed and `N/N seeds converged`; exits non-zero on any failure.
import process from "node:process";
import { soak } from "../tests/_soak.ts";

const args = process.argv.slice(2);
const option = (name: string, fallback: number): number => {
  const i = args.indexOf(`--${name}`);
  const value = i < 0 ? fallback : Number(args[i + 1]);
  if (!Number.isInteger(value) || value < 0) throw new RangeError(`--${name} must be an integer`);
  return value;
};
const seeds = option("seeds", 20);
const from = option("from", 1);
let converged = 0;
let peak = 0;
const checks: Record<string, number> = {};
for (let seed = from; seed < from + seeds; seed++) {
  const mode = seed % 2 === 0 ? "stream" : "list";
  try {
    const r = await soak(seed, mode);
    converged++;
    peak = Math.max(peak, r.peakPer10s);
    for (const [outcome, n] of Object.entries(r.checks)) {
      checks[outcome] = (checks[outcome] ?? 0) + n;
    }
  } catch (error) {
    console.log(`seed ${seed} (${mode}): ${error instanceof Error ? error.message : error}`);
  }
}
console.log(`${converged}/${seeds} seeds converged (peak ${peak} requests in 10 s)`);
console.log(`consistency checks: ${JSON.stringify(checks)} (drift never)`);
process.exit(converged === seeds ? 0 : 1);

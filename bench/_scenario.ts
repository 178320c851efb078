/**
 * The contract between the bench runner (scripts/bench.mjs) and a scenario file
 * (bench/scenarios/<name>.ts). bench/README.md explains it with an example.
 * @module
 */
import type * as esbuild from "esbuild";

/** One row of the results table (and of `rows` in bench/results/latest.json). */
export interface Row {
  /** What is measured, starting with the scenario's number, e.g. `"3 fan-out 100 listeners"`. */
  scenario: string;
  /** `"deno"`, `"bun"`, `"node"`, or `"-"` when no runtime applies. */
  runtime: string;
  /** Pods in the bench server, or `"-"`. */
  n: number | string;
  /** The measured figure, formatted. */
  result: string;
  /** The baseline measured in the same run, formatted. */
  baseline: string;
  /** result / baseline, formatted (`fmtX`). */
  ratio: string;
  /** The target, or `"info"`. */
  target: string;
  /** Whether the target holds; `undefined` for an informational row. */
  holds?: boolean | undefined;
}

/** A running bench server (bench/server.ts) seeded with `n` pods. */
export interface BenchServer {
  /** Base URL on 127.0.0.1. */
  readonly url: string;
  /** Time the server took to seed and listen, in ms. */
  readonly readyMs: number;
  /** Stops the process. */
  stop(): Promise<void>;
}

/** What a `BENCH_RESULT` line carries: the step's result plus `scenario`, `runtime`, `heapUsed`. */
// deno-lint-ignore no-explicit-any
export type ClientResult = any;

/** What the runner gives a scenario's runner-side functions. */
export interface BenchContext {
  /** `BENCH_QUICK=1`: N = 10k only, fewer repetitions, no 200k point. */
  readonly quick: boolean;
  /** Pod counts of the bench servers, in order (`[10_000]` quick, else `[10_000, 50_000]`). */
  readonly sizes: readonly number[];
  /** Runtimes to measure (`BENCH_RUNTIMES`, default deno, bun, node). */
  readonly runtimes: readonly string[];
  /** The repository root. */
  readonly root: string;
  /** A scratch folder (.tmp/bench) for files a scenario writes. */
  readonly tmp: string;
  /** The esbuild module (for scenarios that bundle). */
  readonly esbuild: typeof esbuild;
  /** Whether `name` was asked for (`BENCH_SCENARIOS`; all when unset), not merely needed. */
  wants(name: string): boolean;
  /** A progress line on stderr, with the seconds since the start. */
  log(message: string): void;
  /** Adds a row to the table. */
  row(row: Row): void;
  /** Raw figures for bench/results/latest.json, one array per scenario name (plus `errors`). */
  readonly raw: Record<string, unknown[]>;
  /** Values scenarios share within a run (e.g. sync results that the scale scenario reads). */
  readonly shared: Map<string, unknown>;
  /**
   * Runs one measurement in a fresh process on `runtime`:
   * `<runtime> bench/client.ts <step> ...args`, where `step` is `"<scenario>"` (its step of the
   * same name) or `"<scenario>/<step>"`. Resolves with the step's result, or `undefined` if the
   * process failed (recorded in `raw.errors` and logged; the run goes on and exits 1 at the end).
   */
  client(runtime: string, step: string, args: string[]): Promise<ClientResult | undefined>;
  /** Runs the measurements `count` times, alternating them; their results, failures dropped. */
  repeat<T>(count: number, measurements: (() => Promise<T | undefined>)[]): Promise<T[][]>;
  /** Starts a bench server with `pods` pods and pre-built watch bursts of these sizes. */
  startServer(pods: number, bursts: number[]): Promise<BenchServer>;
}

/**
 * A benchmark scenario: the default export of bench/scenarios/<name>.ts. Every function is
 * optional. The runner calls, for the scenarios asked for (and those they `need`):
 * `alone` (no server), then for each size N: one bench server with every scenario's `bursts`,
 * and `withServer` of each scenario in `order`; then `after`.
 */
export interface Scenario {
  /** `BENCH_SCENARIOS` name; the file must be bench/scenarios/<name>.ts. */
  readonly name: string;
  /** Run order among scenarios, and the number its rows start with (1 decode ... 7 cold). */
  readonly order: number;
  /** Scenarios whose measurements this one reads (they run too, without their rows). */
  readonly needs?: readonly string[];
  /** Settings recorded under `settings` in latest.json (event counts, sizes). */
  readonly settings?: Readonly<Record<string, unknown>>;
  /** Watch bursts (event counts) the bench server of size `n` must pre-build for this one. */
  bursts?(ctx: BenchContext, n: number): number[];
  /** Runs once, before any bench server starts. */
  alone?(ctx: BenchContext): Promise<void>;
  /** Runs against the bench server of each size; must leave the server's pods as they were, or
   * run last (highest `order`). */
  withServer?(ctx: BenchContext, server: BenchServer, n: number): Promise<void>;
  /** Runs once after every size. */
  after?(ctx: BenchContext): Promise<void>;
  /**
   * Measurements run inside a client process (Deno, Bun or Node) by bench/client.ts; each reads
   * its command-line options (bench/_runtime.ts) and returns a JSON-serializable result.
   */
  readonly steps?: Readonly<Record<string, () => Promise<unknown>>>;
}

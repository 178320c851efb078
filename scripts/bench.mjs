#!/usr/bin/env node
// `npm run bench`: kinformer's benchmarks, each next to a baseline measured in the same run.
//
// The runner. Every scenario is one file, bench/scenarios/<name>.ts (the contract: bench/README.md
// and bench/_scenario.ts): it says what the bench server must hold, runs its measurements in fresh
// client processes (bench/client.ts, on Deno, Bun and Node; heap figures after a forced GC) and
// turns them into table rows. This file loads the scenarios, starts the bench server (the
// simulated API server seeded with N pods, in its own process, over loopback HTTP) for each N,
// calls the scenarios in order, prints one table and writes bench/results/latest.json (every raw
// figure, plus machine and run facts) and latest.md (the table).
//
//   node scripts/bench.mjs                      everything (about 7.5 minutes on 2 cores)
//   BENCH_QUICK=1 node scripts/bench.mjs        N = 10k only, fewer repetitions, no 200k point
//   BENCH_SCENARIOS=decode,sync node scripts/bench.mjs   only these (file names in
//                                               bench/scenarios/)
//   BENCH_RUNTIMES=node,deno node scripts/bench.mjs      only these runtimes
//   BENCH_SIZES=50000 node scripts/bench.mjs    only these pod counts
//
// Figures are ratios against baselines measured in this run, so a noisy machine moves both
// sides; repetitions keep the best (short scenarios) or run once (long ones).
import { spawn } from "node:child_process";
import { mkdir, readdir, writeFile } from "node:fs/promises";
import { cpus, loadavg, platform, release, totalmem } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { NODE_PROGRAM } from "./esbuild_options.mjs";
import { bin, root } from "./_run.mjs";

const tmp = join(root, ".tmp", "bench");
const quick = process.env.BENCH_QUICK === "1";
const only = process.env.BENCH_SCENARIOS?.split(",").map((s) => s.trim()).filter(Boolean);
const runtimes = (process.env.BENCH_RUNTIMES ?? "deno,bun,node").split(",").map((s) => s.trim());
const wants = (scenario) => only === undefined || only.includes(scenario);

const SIZES = process.env.BENCH_SIZES
  ? process.env.BENCH_SIZES.split(",").map(Number)
  : quick
  ? [10_000]
  : [10_000, 50_000];
const CHILD_TIMEOUT_MS = 240_000;

const started = Date.now();
const rows = [];
/** Raw figures for latest.json: one array per scenario (filled in main), then `errors`. */
const raw = {};

function log(message) {
  const s = ((Date.now() - started) / 1000).toFixed(0).padStart(4);
  process.stderr.write(`[bench ${s}s] ${message}\n`);
}

// ---------------------------------------------------------------------------------- processes

/** The command line of a client process on `runtime`. */
function clientCommand(runtime, args) {
  switch (runtime) {
    case "node":
      return [process.execPath, [
        "--expose-gc",
        "--max-old-space-size=8192",
        join(tmp, "client.mjs"),
        ...args,
      ]];
    case "deno":
      return [bin("deno"), [
        "run",
        "-A",
        "--v8-flags=--expose-gc,--max-old-space-size=8192",
        join(root, "bench", "client.ts"),
        ...args,
      ]];
    case "bun":
      return [bin("bun"), ["run", join(root, "bench", "client.ts"), ...args]];
  }
  throw new Error(`unknown runtime ${runtime}`);
}

/** Runs one step in a fresh client process; resolves with its BENCH_RESULT, or undefined. */
function client(runtime, step, args) {
  const [cmd, argv] = clientCommand(runtime, [step, ...args]);
  const what = `${runtime} ${step.split("/").at(-1)} ${args.join(" ")}`;
  return new Promise((done) => {
    const child = spawn(cmd, argv, {
      cwd: root,
      env: { ...process.env, NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), CHILD_TIMEOUT_MS);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const line = out.split("\n").find((l) => l.startsWith("BENCH_RESULT "));
      if (line === undefined) {
        raw.errors.push({ what, code, signal, stderr: err.slice(-2000) });
        log(
          `FAILED ${what} (code ${code ?? signal}): ${
            err.trim().split("\n").slice(-3).join(" | ")
          }`,
        );
        done(undefined);
        return;
      }
      done(JSON.parse(line.slice("BENCH_RESULT ".length)));
    });
  });
}

/** Starts the bench server with `pods` pods and the given bursts; resolves when it listens. */
function startServer(pods, bursts) {
  const child = spawn(process.execPath, [
    "--max-semi-space-size=64",
    "--max-old-space-size=16384",
    join(tmp, "server.mjs"),
    "--pods",
    String(pods),
    "--events",
    bursts.join(",") || "0",
  ], { cwd: root, stdio: ["pipe", "pipe", "inherit"] });
  return new Promise((ready, fail) => {
    let out = "";
    const onData = (d) => {
      out += d;
      const nl = out.indexOf("\n");
      if (nl < 0) return;
      child.stdout.off("data", onData);
      const info = JSON.parse(out.slice(0, nl));
      ready({
        ...info,
        stop: () =>
          new Promise((r) => {
            child.on("close", r);
            child.stdin.end();
            setTimeout(() => child.kill("SIGKILL"), 5000).unref();
          }),
      });
    };
    child.stdout.on("data", onData);
    child.on(
      "close",
      (code) => fail(new Error(`bench server exited (${code}) before it was ready`)),
    );
  });
}

/** Runs `count` fresh processes of one measurement, alternating with the others of a group. */
async function repeat(count, measurements) {
  const results = measurements.map(() => []);
  for (let r = 0; r < count; r++) {
    for (let i = 0; i < measurements.length; i++) {
      const value = await measurements[i]();
      if (value !== undefined) results[i].push(value);
    }
  }
  return results;
}

// ---------------------------------------------------------------------------------- scenarios

/**
 * Bundles bench/scenarios/*.ts and bench/_format.ts for Node (one build, shared chunks) and
 * imports them; returns the scenarios by `order` and the formatting helpers.
 */
async function loadScenarios(esbuild) {
  const dir = join(root, "bench", "scenarios");
  const names = (await readdir(dir))
    .filter((f) => f.endsWith(".ts") && !f.startsWith("_"))
    .map((f) => f.slice(0, -3))
    .sort();
  const outdir = join(tmp, "runner");
  await esbuild.build({
    ...NODE_PROGRAM,
    absWorkingDir: root,
    entryPoints: [
      { in: "bench/_format.ts", out: "_format" },
      ...names.map((name) => ({ in: `bench/scenarios/${name}.ts`, out: name })),
    ],
    outdir,
    outExtension: { ".js": ".mjs" },
    splitting: true,
  });
  const load = (out) => import(pathToFileURL(join(outdir, `${out}.mjs`)).href);
  const scenarios = [];
  for (const name of names) {
    const scenario = (await load(name)).default;
    if (scenario?.name !== name || typeof scenario.order !== "number") {
      throw new Error(`bench/scenarios/${name}.ts: default export needs name "${name}" and order`);
    }
    scenarios.push(scenario);
  }
  scenarios.sort((a, b) => a.order - b.order);
  for (const s of scenarios) {
    for (const need of s.needs ?? []) {
      if (!scenarios.some((t) => t.name === need)) throw new Error(`${s.name} needs ${need}`);
    }
  }
  if (only !== undefined) {
    const unknown = only.filter((name) => !names.includes(name));
    if (unknown.length > 0) throw new Error(`BENCH_SCENARIOS: unknown ${unknown.join(", ")}`);
  }
  return { scenarios, format: await load("_format") };
}

// ---------------------------------------------------------------------------------- main

/** The results table as Markdown lines. */
function tableLines(fmtN) {
  const header = [
    "scenario",
    "runtime",
    "N",
    "result",
    "baseline (same run)",
    "ratio",
    "target",
    "holds?",
  ];
  const body = rows.map((r) => [
    r.scenario,
    r.runtime,
    typeof r.n === "number" ? fmtN(r.n) : r.n,
    r.result,
    r.baseline,
    r.ratio,
    r.target,
    r.holds === undefined ? "-" : r.holds ? "yes" : "NO",
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => String(b[i]).length)));
  const line = (cells) => `| ${cells.map((c, i) => String(c).padEnd(widths[i])).join(" | ")} |`;
  return [line(header), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...body.map(line)];
}

async function main() {
  const esbuild = await import("esbuild");
  await mkdir(tmp, { recursive: true });
  await mkdir(join(root, "bench", "results"), { recursive: true });
  for (const name of ["server", "client"]) {
    await esbuild.build({
      ...NODE_PROGRAM,
      absWorkingDir: root,
      entryPoints: [`bench/${name}.ts`],
      outfile: join(tmp, `${name}.mjs`),
    });
  }
  const { scenarios, format } = await loadScenarios(esbuild);
  // The scenarios asked for, and those they read from.
  const enabled = new Set(scenarios.filter((s) => wants(s.name)).map((s) => s.name));
  for (const s of scenarios) {
    if (enabled.has(s.name)) { for (const n of s.needs ?? []) enabled.add(n); }
  }
  const running = scenarios.filter((s) => enabled.has(s.name));
  for (const s of scenarios) raw[s.name] = [];
  raw.errors = [];

  const ctx = {
    quick,
    sizes: SIZES,
    runtimes,
    root,
    tmp,
    esbuild,
    wants,
    log,
    row: (r) => rows.push(r),
    raw,
    shared: new Map(),
    client,
    repeat,
    startServer,
  };

  const machine = {
    platform: `${platform()} ${release()}`,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model,
    memoryGB: Math.round(totalmem() / 1073741824),
    loadAverageAtStart: loadavg().map((x) => x.toFixed(2)),
    node: process.version,
  };
  log(
    `machine: ${machine.cpus} x ${machine.cpuModel}, ${machine.memoryGB} GB, load ${
      machine.loadAverageAtStart.join(" ")
    }`,
  );

  for (const s of running) if (s.alone) await s.alone(ctx);

  const withServer = running.filter((s) => s.withServer);
  for (const n of withServer.length > 0 ? SIZES : []) {
    const bursts = running.flatMap((s) => wants(s.name) && s.bursts ? s.bursts(ctx, n) : []);
    log(`starting the bench server with ${format.fmtN(n)} pods`);
    const server = await startServer(n, [...new Set(bursts)]);
    log(`server ready at ${server.url} (${(server.readyMs / 1000).toFixed(1)} s to seed)`);
    try {
      for (const s of withServer) await s.withServer(ctx, server, n);
    } finally {
      await server.stop();
    }
  }

  for (const s of running) if (s.after) await s.after(ctx);

  rows.sort((a, b) =>
    a.scenario.localeCompare(b.scenario, "en", { numeric: true }) ||
    String(a.n).localeCompare(String(b.n), "en", { numeric: true }) ||
    a.runtime.localeCompare(b.runtime)
  );
  const seconds = Math.round((Date.now() - started) / 1000);
  const missed = rows.filter((r) => r.holds === false).length;
  const summary = `${rows.filter((r) => r.holds !== undefined).length - missed} targets hold, ` +
    `${missed} missed; ${raw.errors.length} failed measurement(s); ${seconds} s on ` +
    `${machine.cpus} x ${machine.cpuModel}, ${machine.memoryGB} GB, load ` +
    `${machine.loadAverageAtStart.join(" ")} at start; node ${process.version}.`;
  const table = tableLines(format.fmtN);
  console.log(`${table.join("\n")}\n\n${summary}`);
  await writeFile(
    join(root, "bench", "results", "latest.md"),
    `# \`npm run bench\` (${new Date().toISOString()})\n\n${table.join("\n")}\n\n${summary}\n`,
  );
  const results = {
    date: new Date().toISOString(),
    seconds,
    machine: { ...machine, loadAverageAtEnd: loadavg().map((x) => x.toFixed(2)) },
    settings: {
      quick,
      sizes: SIZES,
      runtimes,
      ...Object.assign({}, ...scenarios.map((s) => s.settings ?? {})),
    },
    rows,
    raw,
  };
  await writeFile(
    join(root, "bench", "results", "latest.json"),
    JSON.stringify(results, null, 2) + "\n",
  );
  await (await import("./bench_charts.mjs")).writeBenchCharts(results); // bench/results/*.svg
  log(`wrote bench/results/latest.json and latest.md`);
  if (raw.errors.length > 0) process.exitCode = 1;
}

await main();

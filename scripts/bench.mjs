#!/usr/bin/env node
// `npm run bench`: kinformer's benchmarks, each next to a baseline measured in the same run.
//
// Bundles bench/server.ts and bench/client.ts for Node with esbuild, starts the bench server
// (the simulated API server seeded with N pods, in its own process, over loopback HTTP) for each
// N, and runs every measurement in a fresh client process on Deno, Bun and Node (heap figures
// after a forced GC: --expose-gc, Bun.gc(true)). Prints one table and writes
// bench/results/latest.json (every raw figure, plus machine and run facts) and latest.md (the
// table).
//
//   node scripts/bench.mjs                      everything (about 7.5 minutes on 2 cores)
//   BENCH_QUICK=1 node scripts/bench.mjs        N = 10k only, fewer repetitions, no 200k point
//   BENCH_SCENARIOS=decode,sync node scripts/bench.mjs   only these (decode, sync, fanout,
//                                               slow, scale, bundle, cold)
//   BENCH_RUNTIMES=node,deno node scripts/bench.mjs      only these runtimes
//
// Figures are ratios against baselines measured in this run, so a noisy machine moves both
// sides; repetitions keep the best (short scenarios) or run once (long ones).
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { cpus, loadavg, platform, release, totalmem } from "node:os";
import { join, resolve } from "node:path";
import { gzipSync } from "node:zlib";

const root = resolve(import.meta.dirname, "..");
const tmp = join(root, ".tmp", "bench");
const bin = (name) => join(root, "node_modules", ".bin", name);
const quick = process.env.BENCH_QUICK === "1";
const only = process.env.BENCH_SCENARIOS?.split(",").map((s) => s.trim()).filter(Boolean);
const runtimes = (process.env.BENCH_RUNTIMES ?? "deno,bun,node").split(",").map((s) => s.trim());
const wants = (scenario) => only === undefined || only.includes(scenario);

const SIZES = quick ? [10_000] : [10_000, 50_000];
const SCALE_TOP = 200_000;
const DECODE_EVENTS = 100_000;
const FANOUT_EVENTS = 20_000;
const SLOW_EVENTS = 100_000;
const CHURN_AFTER_CHECKPOINT = 100;
const CHILD_TIMEOUT_MS = 240_000;

const started = Date.now();
const rows = [];
const raw = {
  decode: [],
  sync: [],
  fanout: [],
  slow: [],
  scale: [],
  bundle: [],
  cold: [],
  errors: [],
};

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

/** Runs one measurement; resolves with its BENCH_RESULT object, or undefined on failure. */
function client(runtime, args) {
  const [cmd, argv] = clientCommand(runtime, args);
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
        const what = `${runtime} ${args.join(" ")}`;
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

async function post(url) {
  const response = await fetch(url, { method: "POST" });
  return await response.json();
}

// ---------------------------------------------------------------------------------- helpers

const best = (xs) => Math.min(...xs);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const fmtMs = (ms) => (ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`);
const fmtMB = (bytes) => `${(bytes / 1048576).toFixed(1)} MB`;
const fmtKB = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
const fmtN = (n) => (n >= 1000 ? `${n / 1000}k` : String(n));
const fmtX = (x) => (Number.isFinite(x) ? `${x.toFixed(Math.abs(x) < 1 ? 3 : 2)}x` : "n/a");

/** Adds a table row; `holds` is true/false, or undefined for an informational row. */
function row(scenario, runtime, n, result, baseline, ratio, target, holds) {
  rows.push({ scenario, runtime, n, result, baseline, ratio, target, holds });
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

async function decode(server, n) {
  const reps = quick ? 1 : n >= 50_000 ? 2 : 3;
  for (const runtime of runtimes) {
    log(`decode ${runtime} N=${fmtN(n)} M=${fmtN(DECODE_EVENTS)} (best of ${reps})`);
    const layers = n === SIZES[0] ? "1" : "0";
    const r = await client(runtime, [
      "decode",
      "--url",
      server.url,
      "--events",
      String(DECODE_EVENTS),
      "--reps",
      String(reps),
      "--layers",
      layers,
    ]);
    if (r === undefined) continue;
    raw.decode.push({ n, ...r });
    const mbps = (ms) => r.bytes / 1048576 / (ms / 1000);
    const eps = (ms) => r.events / (ms / 1000);
    const informer = mbps(r.ms.informer);
    const memory = mbps(r.ms.memory);
    const http = mbps(r.ms.http);
    const result = `${informer.toFixed(0)} MB/s, ${(eps(r.ms.informer) / 1000).toFixed(1)}k ev/s`;
    row(
      "1 decode+deliver vs bare JSON.parse (in memory)",
      runtime,
      n,
      result,
      `${memory.toFixed(0)} MB/s, ${(eps(r.ms.memory) / 1000).toFixed(1)}k ev/s`,
      fmtX(informer / memory),
      ">= 0.8x",
      informer / memory >= 0.8,
    );
    row(
      "1 decode+deliver vs fetch+split+parse loop",
      runtime,
      n,
      result,
      `${http.toFixed(0)} MB/s, ${(eps(r.ms.http) / 1000).toFixed(1)}k ev/s`,
      fmtX(informer / http),
      "info",
      undefined,
    );
    if (r.ms.decoder !== undefined && r.ms.httpRetain !== undefined) {
      const decoder = mbps(r.ms.decoder);
      const retain = mbps(r.ms.httpRetain);
      row(
        "1 layers: decoder alone over HTTP (no cache) vs bare JSON.parse (in memory)",
        runtime,
        n,
        `${decoder.toFixed(0)} MB/s`,
        `${memory.toFixed(0)} MB/s`,
        fmtX(decoder / memory),
        "info",
        undefined,
      );
      row(
        "1 layers: bare HTTP loop + Map cache vs bare JSON.parse (in memory)",
        runtime,
        n,
        `${retain.toFixed(0)} MB/s`,
        `${memory.toFixed(0)} MB/s`,
        fmtX(retain / memory),
        "info",
        undefined,
      );
      row(
        "1 layers: decode+deliver vs bare HTTP loop + Map cache",
        runtime,
        n,
        `${informer.toFixed(0)} MB/s`,
        `${retain.toFixed(0)} MB/s`,
        fmtX(informer / retain),
        "info",
        undefined,
      );
    }
  }
}

/** Sync measurements of one N; returns { [runtime]: { [impl]: { ms, heap } } }. */
async function sync(server, n, { reps, impls, runtimesHere }) {
  const out = {};
  for (const runtime of runtimesHere) {
    // client-node is the baseline on Node; on Deno and Bun (where it runs without the shims
    // bench/client_node.ts needs on Node 20) it is measured too, except in quick runs.
    const names = impls.filter((impl) => impl !== "client-node" || runtime === "node" || !quick);
    log(`sync ${runtime} N=${fmtN(n)}: ${names.join(", ")} (${reps} fresh process(es) each)`);
    const results = await repeat(
      reps,
      names.map((impl) => () =>
        client(runtime, ["sync", "--url", server.url, "--impl", impl, "--pods", String(n)])
      ),
    );
    out[runtime] = {};
    names.forEach((impl, i) => {
      const rs = results[i];
      if (rs.length === 0) return;
      out[runtime][impl] = {
        ms: best(rs.map((x) => x.ms)),
        heap: median(rs.map((x) => x.heap)),
        runs: rs,
      };
      raw.sync.push({ n, runtime, impl, runs: rs });
    });
  }
  return out;
}

function syncRows(n, results) {
  const target = n === 50_000; // the targets are stated for 50k pods
  for (const [runtime, r] of Object.entries(results)) {
    const k = r.kinformer;
    const t = r["kinformer-transform"];
    const bare = r.bare;
    const cn = r["client-node"];
    if (k && cn) {
      const x = cn.ms / k.ms;
      row(
        "2 sync time vs client-node (x faster)",
        runtime,
        n,
        fmtMs(k.ms),
        fmtMs(cn.ms),
        fmtX(x),
        target ? ">= 3x" : "info",
        target ? x >= 3 : undefined,
      );
    }
    if (k && bare) {
      const x = k.ms / bare.ms;
      row(
        "2 sync time vs bare paged fetch+parse",
        runtime,
        n,
        fmtMs(k.ms),
        fmtMs(bare.ms),
        fmtX(x),
        target ? "<= 1.3x" : "info",
        target ? x <= 1.3 : undefined,
      );
    }
    const st = r["kinformer-stream"];
    if (st && cn) {
      row(
        "2 sync time (initialList: stream) vs client-node (x faster)",
        runtime,
        n,
        fmtMs(st.ms),
        fmtMs(cn.ms),
        fmtX(cn.ms / st.ms),
        "info",
        undefined,
      );
    }
    if (st && bare) {
      row(
        "2 sync time (initialList: stream) vs bare paged loop",
        runtime,
        n,
        fmtMs(st.ms),
        fmtMs(bare.ms),
        fmtX(st.ms / bare.ms),
        "info",
        undefined,
      );
    }
    if (t && bare) {
      row(
        "2 sync time (transform) vs bare loop",
        runtime,
        n,
        fmtMs(t.ms),
        fmtMs(bare.ms),
        fmtX(t.ms / bare.ms),
        "info",
        undefined,
      );
    }
    if (k && cn) {
      const x = k.heap / cn.heap;
      row(
        "2 heap after sync vs client-node",
        runtime,
        n,
        fmtMB(k.heap),
        fmtMB(cn.heap),
        fmtX(x),
        "<= 0.5x",
        x <= 0.5,
      );
    }
    if (t && cn) {
      const x = t.heap / cn.heap;
      row(
        "2 heap after sync (transform) vs client-node",
        runtime,
        n,
        fmtMB(t.heap),
        fmtMB(cn.heap),
        fmtX(x),
        "<= 0.35x",
        x <= 0.35,
      );
    }
    if (k && bare) {
      row(
        "2 heap after sync vs bare parsed items",
        runtime,
        n,
        fmtMB(k.heap),
        fmtMB(bare.heap),
        fmtX(k.heap / bare.heap),
        "info",
        undefined,
      );
    }
  }
}

async function fanout(server, n) {
  const runtime = runtimes.includes("node") ? "node" : runtimes[0];
  const reps = quick ? 1 : 3;
  const ms = {};
  for (const listeners of [1, 10, 100]) {
    log(
      `fanout ${runtime} N=${fmtN(n)} M=${
        fmtN(FANOUT_EVENTS)
      } listeners=${listeners} (best of ${reps})`,
    );
    const r = await client(runtime, [
      "fanout",
      "--url",
      server.url,
      "--events",
      String(FANOUT_EVENTS),
      "--listeners",
      String(listeners),
      "--reps",
      String(reps),
    ]);
    if (r === undefined) continue;
    raw.fanout.push({ n, ...r });
    ms[listeners] = r;
  }
  if (ms[1] === undefined) return;
  for (const listeners of [10, 100]) {
    const r = ms[listeners];
    if (r === undefined) continue;
    const x = r.ms / ms[1].ms;
    const per = (v) => `${(v.perEventPerListenerNs / 1000).toFixed(2)} us/ev/listener`;
    row(
      `3 fan-out ${listeners} listeners vs 1 (total time)`,
      runtime,
      n,
      `${fmtMs(r.ms)} (${per(r)})`,
      `${fmtMs(ms[1].ms)} (${per(ms[1])})`,
      fmtX(x),
      listeners === 100 ? "<= 3x" : "info",
      listeners === 100 ? x <= 3 : undefined,
    );
  }
}

async function slow(server, n) {
  const runtime = runtimes.includes("node") ? "node" : runtimes[0];
  const out = {};
  for (const policy of ["none", "grow", "coalesce"]) {
    log(`slow consumer ${runtime} N=${fmtN(n)} M=${fmtN(SLOW_EVENTS)} policy=${policy}`);
    const r = await client(runtime, [
      "slow",
      "--url",
      server.url,
      "--events",
      String(SLOW_EVENTS),
      "--policy",
      policy,
    ]);
    if (r === undefined) continue;
    raw.slow.push({ n, ...r });
    out[policy] = r;
  }
  const growth = (r) => r.samples.at(-1).heap - r.samples[0].heap;
  const curve = (r) => r.samples.map((s) => (s.heap / 1048576).toFixed(0)).join("/");
  const none = out.none;
  if (out.grow && none) {
    row(
      "4 slow consumer, grow: heap after M events",
      runtime,
      n,
      `+${fmtMB(growth(out.grow))}, backlog ${out.grow.samples.at(-1).backlog} (MB: ${
        curve(out.grow)
      })`,
      `+${fmtMB(growth(none))} (no stalled listener; MB: ${curve(none)})`,
      fmtX((out.grow.samples.at(-1).heap) / none.samples.at(-1).heap),
      "info (unbounded)",
      undefined,
    );
  }
  if (out.coalesce && none && out.grow) {
    const c = out.coalesce;
    const maxBacklog = Math.max(...c.samples.map((s) => s.backlog));
    // Flat: once every key has an event pending, the heap stops growing; allow 10% of what
    // "grow" added over the same events (noise), and a backlog bounded by the keys.
    const flat = growth(c) <= 0.1 * growth(out.grow) && maxBacklog <= n + 1;
    row(
      "4 slow consumer, coalesce: heap after M events",
      runtime,
      n,
      `+${fmtMB(growth(c))}, backlog <= ${maxBacklog} (MB: ${curve(c)})`,
      `grow: +${fmtMB(growth(out.grow))}`,
      fmtX(growth(c) / growth(out.grow)),
      "flat: <= 0.1x grow, backlog <= keys",
      flat,
    );
  }
}

async function cold(server, n) {
  const file = join(tmp, `checkpoint-${n}.json`);
  const reps = quick ? 1 : 2;
  log(`cold start N=${fmtN(n)}: writing the checkpoint`);
  const cp = await client("node", ["checkpoint", "--url", server.url, "--file", file]);
  if (cp === undefined) return;
  const churn = await post(`${server.url}/bench/churn?steps=${CHURN_AFTER_CHECKPOINT}`);
  for (const runtime of runtimes) {
    log(`cold start ${runtime} N=${fmtN(n)} (best of ${reps})`);
    const [resume, list] = await repeat(reps, [
      () => client(runtime, ["cold", "--url", server.url, "--mode", "resume", "--file", file]),
      () => client(runtime, ["cold", "--url", server.url, "--mode", "list"]),
    ]);
    if (resume.length === 0 || list.length === 0) continue;
    raw.cold.push({ n, runtime, checkpointBytes: cp.bytes, churn, resume, list });
    const pick = (rs, k) => best(rs.map((x) => x[k]));
    const first = [pick(resume, "firstEventMs"), pick(list, "firstEventMs")];
    const synced = [pick(resume, "syncedMs"), pick(list, "syncedMs")];
    const current = [pick(resume, "currentMs"), pick(list, "currentMs")];
    row(
      "7 cold start to first event: checkpoint vs list",
      runtime,
      n,
      fmtMs(first[0]),
      fmtMs(first[1]),
      fmtX(first[0] / first[1]),
      "< 1x",
      first[0] < first[1],
    );
    row(
      "7 cold start to synced: checkpoint vs list",
      runtime,
      n,
      fmtMs(synced[0]),
      fmtMs(synced[1]),
      fmtX(synced[0] / synced[1]),
      "< 1x",
      synced[0] < synced[1],
    );
    row(
      `7 cold start to current (+${CHURN_AFTER_CHECKPOINT} changes): checkpoint vs list`,
      runtime,
      n,
      fmtMs(current[0]),
      fmtMs(current[1]),
      fmtX(current[0] / current[1]),
      "info",
      undefined,
    );
  }
}

function scaleRows(points) {
  // points: [{ n, runtime, ms, heap }] for kinformer; linear when the per-object cost holds.
  const byRuntime = new Map();
  for (const p of points) {
    if (!byRuntime.has(p.runtime)) byRuntime.set(p.runtime, []);
    byRuntime.get(p.runtime).push(p);
  }
  for (const [runtime, ps] of byRuntime) {
    ps.sort((a, b) => a.n - b.n);
    const base = ps[0];
    for (const p of ps.slice(1)) {
      const perMs = (q) => (q.ms / q.n) * 1000;
      const perHeap = (q) => q.heap / q.n;
      const tx = perMs(p) / perMs(base);
      const hx = perHeap(p) / perHeap(base);
      raw.scale.push({ runtime, n: p.n, ms: p.ms, heap: p.heap, baseN: base.n, tx, hx });
      row(
        "5 scale: sync time per object vs 10k",
        runtime,
        p.n,
        `${fmtMs(p.ms)} (${perMs(p).toFixed(1)} ms/1k)`,
        `${fmtMs(base.ms)} (${perMs(base).toFixed(1)} ms/1k)`,
        fmtX(tx),
        "<= 1.5x (linear)",
        tx <= 1.5,
      );
      row(
        "5 scale: heap per object vs 10k",
        runtime,
        p.n,
        `${fmtMB(p.heap)} (${fmtKB(perHeap(p))}/obj)`,
        `${fmtMB(base.heap)} (${fmtKB(perHeap(base))}/obj)`,
        fmtX(hx),
        "<= 1.2x (linear)",
        hx <= 1.2,
      );
    }
  }
}

async function bundle(esbuild) {
  log("bundle sizes");
  const ours = join(tmp, "kinformer.min.js");
  // The same options as scripts/build.mjs's single-file build (dist/kinformer.min.js).
  await esbuild.build({
    absWorkingDir: root,
    entryPoints: ["mod.ts"],
    outfile: ours,
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    external: ["node:*"],
    minify: true,
    legalComments: "none",
    logLevel: "warning",
  });
  const theirsEntry = join(tmp, "client_node_entry.mjs");
  await writeFile(
    theirsEntry,
    'export { CoreV1Api, KubeConfig, makeInformer } from "@kubernetes/client-node";\n',
  );
  const theirs = join(tmp, "client-node.min.js");
  await esbuild.build({
    absWorkingDir: root,
    entryPoints: [theirsEntry],
    outfile: theirs,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "es2022",
    minify: true,
    legalComments: "none",
    logLevel: "error",
  });
  const sizes = async (path) => {
    const bytes = await readFile(path);
    return { min: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
  };
  const k = await sizes(ours);
  const c = await sizes(theirs);
  const dist = join(root, "dist", "kinformer.min.js");
  const built = existsSync(dist) ? await sizes(dist) : undefined;
  raw.bundle.push({ kinformer: k, distKinformer: built, clientNode: c });
  row(
    "6 bundle size (min / gzip), mod.ts",
    "-",
    "-",
    `${fmtKB(k.min)} / ${fmtKB(k.gzip)}`,
    `client-node informer: ${fmtKB(c.min)} / ${fmtKB(c.gzip)}`,
    fmtX(k.gzip / c.gzip),
    "info",
    undefined,
  );
  if (built !== undefined && built.min !== k.min) {
    row(
      "6 bundle size, dist/kinformer.min.js (scripts/build.mjs)",
      "-",
      "-",
      `${fmtKB(built.min)} / ${fmtKB(built.gzip)}`,
      "-",
      "-",
      "info",
      undefined,
    );
  }
}

// ---------------------------------------------------------------------------------- main

/** The results table as Markdown lines. */
function tableLines() {
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
      absWorkingDir: root,
      entryPoints: [`bench/${name}.ts`],
      outfile: join(tmp, `${name}.mjs`),
      bundle: true,
      platform: "node",
      format: "esm",
      packages: "external",
      target: "node20",
      logLevel: "warning",
    });
  }
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

  if (wants("bundle")) await bundle(esbuild);

  const syncBySize = {};
  const serverScenarios = ["decode", "sync", "scale", "fanout", "slow", "cold"];
  for (const n of serverScenarios.some(wants) ? SIZES : []) {
    const bursts = [];
    if (wants("decode")) bursts.push(DECODE_EVENTS);
    if (wants("fanout") && n === SIZES[0]) bursts.push(FANOUT_EVENTS);
    if (wants("slow") && n === SIZES[0]) bursts.push(SLOW_EVENTS);
    log(`starting the bench server with ${fmtN(n)} pods`);
    const server = await startServer(n, [...new Set(bursts)]);
    log(`server ready at ${server.url} (${(server.readyMs / 1000).toFixed(1)} s to seed)`);
    try {
      if (wants("decode")) await decode(server, n);
      if (wants("sync") || wants("scale")) {
        const reps = quick ? 1 : n >= 50_000 ? 2 : 3;
        syncBySize[n] = await sync(server, n, {
          reps,
          impls: ["kinformer", "kinformer-transform", "kinformer-stream", "bare", "client-node"],
          runtimesHere: runtimes,
        });
        if (wants("sync")) syncRows(n, syncBySize[n]);
      }
      if (wants("fanout") && n === SIZES[0]) await fanout(server, n);
      if (wants("slow") && n === SIZES[0]) await slow(server, n);
      if (wants("cold")) await cold(server, n); // last: it changes the cluster
    } finally {
      await server.stop();
    }
  }

  if (wants("scale")) {
    const runtime = runtimes.includes("node") ? "node" : runtimes[0];
    const points = [];
    for (const n of SIZES) {
      const k = syncBySize[n]?.[runtime]?.kinformer;
      if (k) points.push({ n, runtime, ms: k.ms, heap: k.heap });
    }
    if (!quick) {
      log(`starting the bench server with ${fmtN(SCALE_TOP)} pods (scale point)`);
      const server = await startServer(SCALE_TOP, []);
      log(`server ready (${(server.readyMs / 1000).toFixed(1)} s to seed)`);
      try {
        const r = await sync(server, SCALE_TOP, {
          reps: 1,
          impls: ["kinformer", "bare"],
          runtimesHere: [runtime],
        });
        const k = r[runtime]?.kinformer;
        if (k) points.push({ n: SCALE_TOP, runtime, ms: k.ms, heap: k.heap });
        syncRows(SCALE_TOP, r);
      } finally {
        await server.stop();
      }
    }
    scaleRows(points);
  }

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
  const table = tableLines();
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
      decodeEvents: DECODE_EVENTS,
      fanoutEvents: FANOUT_EVENTS,
      slowEvents: SLOW_EVENTS,
      scaleTop: SCALE_TOP,
    },
    rows,
    raw,
  };
  await writeFile(
    join(root, "bench", "results", "latest.json"),
    JSON.stringify(results, null, 2) + "\n",
  );
  log(`wrote bench/results/latest.json and latest.md`);
  if (raw.errors.length > 0) process.exitCode = 1;
}

await main();

// The serverless examples: examples/cron_catch_up.ts run as a child process by Deno and by Bun,
// twice, against a simulated cluster served over HTTP that this test changes between the runs.
// (The Prometheus renderer examples/prometheus_metrics.ts serves is tested in
// tests/metrics/prometheus_metrics_test.ts.)
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { configmaps, pods } from "../../src/client/resource.ts";
import type { InformerCheckpoint } from "../../src/cache/informer.ts";
import type { SimulatedCluster } from "@kinformer/simulator";
import { pod } from "../_informer_env.ts";
import { runtime, serveCluster, type ServedCluster } from "../_serve.ts";
import {
  bin,
  missingBinary,
  ROOT,
  runProcess,
  SOURCE_CONDITION,
  withTempDir,
} from "../_runtime_process.ts";

// ------------------------------------------------------------------ cron catch-up, as a process

const CRON = join(ROOT, "examples", "cron_catch_up.ts");

interface CronRuntime {
  name: "deno" | "bun";
  skip: string | undefined;
  args(script: string, extra: string[]): [string, string[]];
}

const RUNTIMES: CronRuntime[] = [
  {
    name: "deno",
    skip: missingBinary(bin("deno"), "deno"),
    args: (script, extra) => [
      bin("deno"),
      [
        "run",
        "--no-lock",
        "--allow-net=127.0.0.1",
        "--allow-read",
        "--allow-write",
        script,
        ...extra,
      ],
    ],
  },
  {
    name: "bun",
    skip: missingBinary(bin("bun"), "bun"),
    args: (script, extra) => [bin("bun"), [SOURCE_CONDITION, script, ...extra]],
  },
];

interface CronRun {
  code: number | null;
  changes: string[];
  stderr: string;
  output: string;
  checkpoint: InformerCheckpoint;
}

async function runCron(rt: CronRuntime, state: string, extra: string[] = []): Promise<CronRun> {
  const [command, args] = rt.args(CRON, ["--state", state, ...extra]);
  const r = await runProcess(command, args, { killAfterMs: 30_000 });
  const checkpoint = JSON.parse(await readFile(state, "utf8")) as InformerCheckpoint;
  const changes = r.stdout.split("\n").filter((l) => l !== "");
  return { code: r.code, changes, stderr: r.stderr, output: r.output, checkpoint };
}

/** A simulated cluster (on the real clock) served over HTTP on 127.0.0.1, with three pods. */
async function servedCluster(): Promise<ServedCluster> {
  const served = await serveCluster({ seed: 3 });
  for (const n of ["web-1", "web-2", "web-3"]) served.cluster.create(pods, pod("default", n));
  return served;
}

/** Between runs: one add, one update, one delete, the last write of the cluster being to pods. */
function changeBetweenRuns(cluster: SimulatedCluster): string[] {
  const added = cluster.create(pods, pod("default", "web-4"));
  const updated = cluster.patch(pods, { namespace: "default", name: "web-1" }, {
    metadata: { labels: { v: "2" } },
  });
  const deleted = cluster.delete(pods, { namespace: "default", name: "web-2" });
  return [
    `add default/web-4 rv=${added.metadata.resourceVersion}`,
    `update default/web-1 rv=${updated.metadata.resourceVersion}`,
    `delete default/web-2 rv=${deleted.metadata.resourceVersion}`,
  ];
}

describe(`examples/cron_catch_up.ts (test process: ${runtime})`, () => {
  for (const rt of RUNTIMES) {
    test(
      `on ${rt.name}, with --server: the second run resumes from the saved checkpoint with no paged LIST`,
      {
        skip: rt.skip,
        timeout: 60_000,
      },
      async () => {
        await withTempDir("cron", async (dir) => {
          const state = join(dir, "pods.json");
          const served = await servedCluster();
          try {
            const first = await runCron(rt, state, ["--server", served.server.url]);
            assert.equal(first.code, 0, first.output);
            assert.match(first.stderr, /no checkpoint: listing everything/);
            assert.equal(first.checkpoint.resourceVersion, served.cluster.resourceVersion);
            assert.deepEqual(first.checkpoint.objects!.map((o) => o.metadata.name).sort(), [
              "web-1",
              "web-2",
              "web-3",
            ]);
            assert.ok(
              served.cluster.requests.some((r) => r.verb === "list" && r.query.limit === "500"),
            );

            changeBetweenRuns(served.cluster);
            served.cluster.clearRequests();
            const second = await runCron(rt, state, ["--server", served.server.url]);
            assert.equal(second.code, 0, second.output);
            assert.match(
              second.stderr,
              new RegExp(`resuming at resourceVersion ${first.checkpoint.resourceVersion}\\b`),
            );
            // One limit=1 list to learn where "current" is, no paged LIST, a watch from the checkpoint.
            const asked = served.cluster.requests;
            assert.deepEqual(asked.filter((r) => r.verb === "list").map((r) => r.query.limit), [
              "1",
            ], second.output);
            const watches = asked.filter((r) => r.verb === "watch");
            assert.equal(watches[0]?.query.resourceVersion, first.checkpoint.resourceVersion);
            assert.equal(second.checkpoint.resourceVersion, served.cluster.resourceVersion);
            assert.deepEqual(second.checkpoint.objects!.map((o) => o.metadata.name).sort(), [
              "web-1",
              "web-3",
              "web-4",
            ]);
            assert.equal(
              second.checkpoint.objects!.find((o) => o.metadata.name === "web-1")?.metadata.labels
                ?.v,
              "2",
            );
          } finally {
            await served.close();
          }
        });
      },
    );

    test(
      `on ${rt.name}, with --server: each run prints exactly the changes since the previous one`,
      {
        skip: rt.skip,
        timeout: 60_000,
      },
      async () => {
        await withTempDir("cron-print", async (dir) => {
          const state = join(dir, "pods.json");
          const served = await servedCluster();
          try {
            const first = await runCron(rt, state, ["--server", served.server.url]);
            assert.equal(first.code, 0, first.output);
            assert.deepEqual(first.changes.map((l) => l.replace(/ rv=\d+/, "")), [
              "add default/web-1 initial",
              "add default/web-2 initial",
              "add default/web-3 initial",
            ], first.output);
            const expected = changeBetweenRuns(served.cluster);
            const second = await runCron(rt, state, ["--server", served.server.url]);
            assert.equal(second.code, 0, second.output);
            assert.deepEqual(second.changes, expected, second.output);
            const third = await runCron(rt, state, ["--server", served.server.url]);
            assert.deepEqual(third.changes, [], third.output);
          } finally {
            await served.close();
          }
        });
      },
    );

    test(
      `on ${rt.name}, with --server: a run that cannot catch up before --timeout exits 2 and keeps the old checkpoint`,
      {
        skip: rt.skip,
        timeout: 60_000,
      },
      async () => {
        await withTempDir("cron-timeout", async (dir) => {
          const state = join(dir, "pods.json");
          const served = await servedCluster();
          try {
            const first = await runCron(rt, state, ["--server", served.server.url]);
            assert.equal(first.code, 0, first.output);
            const saved = await readFile(state, "utf8");
            served.cluster.create(pods, pod("default", "web-9"));
            // The newest write is to another resource: the pods watch only reaches that version at
            // the server's next bookmark, a minute away, far beyond the run's time limit.
            served.cluster.create(configmaps, { metadata: { namespace: "default", name: "c" } });
            const second = await runCron(rt, state, [
              "--server",
              served.server.url,
              "--timeout",
              "0.3",
            ]);
            assert.equal(second.code, 2, second.output);
            assert.match(second.stderr, /timed out after 0\.3 s/);
            assert.match(second.stderr, /not updated/);
            assert.equal(await readFile(state, "utf8"), saved);
          } finally {
            await served.close();
          }
        });
      },
    );

    test(
      `on ${rt.name}, without --server: each run replays the seeded history and catches up on one new round`,
      {
        skip: rt.skip,
        timeout: 60_000,
      },
      async () => {
        await withTempDir("cron-sim", async (dir) => {
          const state = join(dir, "sim.json");
          const first = await runCron(rt, state);
          assert.equal(first.code, 0, first.output);
          const second = await runCron(rt, state);
          assert.equal(second.code, 0, second.output);
          assert.match(
            second.stderr,
            new RegExp(`resuming at resourceVersion ${first.checkpoint.resourceVersion}\\b`),
          );
          assert.ok(
            Number(second.checkpoint.resourceVersion) > Number(first.checkpoint.resourceVersion),
          );
          assert.ok(second.changes.every((l) => !l.endsWith(" initial")), second.output);
          assert.ok(second.checkpoint.objects!.length > 0);
        });
      },
    );
  }

  test("a bad command line exits 1 with a message naming the problem", {
    skip: RUNTIMES[1]!.skip ?? RUNTIMES[0]!.skip,
  }, async () => {
    const rt = RUNTIMES.find((r) => r.skip === undefined)!;
    const [command, args] = rt.args(CRON, ["--server", "http://127.0.0.1:1"]);
    const r = await runProcess(command, args);
    assert.equal(r.code, 1, r.output);
    assert.match(r.stderr, /--state FILE is required/);
  });
});

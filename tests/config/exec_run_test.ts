// How ExecCredentialSource runs a plugin (issues 23.4 and 25.4), with an in-memory runner: the
// terminal and interactiveMode, stderr as it is written, the time limit and aborts (on an
// injected clock, nothing sleeps), the refusal of values no process API takes, the stdout cap.
// tests/integration/exec_plugin_test.ts checks the same with each runtime's real runner.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { DEFAULT_EXEC_TIMEOUT_MS, NO_TERMINAL_RETRY_MS } from "../../src/config/exec_credential.ts";
import {
  type ExecCommand,
  type ExecCommandResult,
  ExecCredentialError,
  ExecCredentialSource,
  type ExecCredentialSourceOptions,
} from "../../src/config/mod.ts";
import type { KubeconfigExec } from "../../src/config/kubeconfig.ts";
import { ManualClock } from "../../src/testing/manual_clock.ts";
import { failure } from "../_errors.ts";

const V1 = "client.authentication.k8s.io/v1";
const token = (t: string): ExecCommandResult => ({
  exitCode: 0,
  stdout: JSON.stringify({ apiVersion: V1, kind: "ExecCredential", status: { token: t } }),
});

/** A runner whose runs wait until released; it records each command. */
function gatedRunner(): {
  run: (command: ExecCommand) => Promise<ExecCommandResult>;
  commands: ExecCommand[];
  release(result: ExecCommandResult): void;
} {
  const commands: ExecCommand[] = [];
  const pending: ((result: ExecCommandResult) => void)[] = [];
  return {
    commands,
    run: (command) => {
      commands.push(command);
      return new Promise((resolve, reject) => {
        pending.push(resolve);
        command.signal.addEventListener("abort", () => {
          pending.splice(pending.indexOf(resolve), 1);
          reject(command.signal.reason);
        }, { once: true });
      });
    },
    release: (result) => pending.shift()?.(result),
  };
}

function source(
  exec: Partial<KubeconfigExec>,
  options: Omit<Partial<ExecCredentialSourceOptions>, "exec"> = {},
): ExecCredentialSource {
  return new ExecCredentialSource({
    isNotFound: () => false,
    run: () => Promise.resolve(token("t")),
    user: "alice",
    ...options,
    exec: { command: "plugin", apiVersion: V1, interactiveMode: "Never", ...exec },
  });
}

/** Lets pending promise callbacks run. */
const settle = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

describe("exec plugins: the terminal and interactiveMode (as client-go)", () => {
  const cases = [
    { mode: "Never", terminal: true, stdin: "null", interactive: false },
    { mode: "Never", terminal: false, stdin: "null", interactive: false },
    { mode: "IfAvailable", terminal: true, stdin: "inherit", interactive: true },
    { mode: "IfAvailable", terminal: false, stdin: "null", interactive: false },
    { mode: "Always", terminal: true, stdin: "inherit", interactive: true },
  ] as const;
  for (const { mode, terminal, stdin, interactive } of cases) {
    test(`${mode} with${terminal ? "" : "out"} a terminal: stdin ${stdin}, spec.interactive ${interactive}`, async () => {
      const commands: ExecCommand[] = [];
      const s = source({ interactiveMode: mode }, {
        isTerminal: () => terminal,
        run: (command) => {
          commands.push(command);
          return Promise.resolve(token("t"));
        },
      });
      assert.equal(await s.token(), "t");
      assert.equal(commands[0]!.stdin, stdin);
      const info = JSON.parse(commands[0]!.env["KUBERNETES_EXEC_INFO"]!);
      assert.equal(info.spec.interactive, interactive);
    });
  }

  test("Always without a terminal fails when a credential is asked for, and runs nothing", async () => {
    let runs = 0;
    const s = source({ interactiveMode: "Always" }, {
      isTerminal: () => false,
      run: () => {
        runs++;
        return Promise.resolve(token("t"));
      },
    });
    const error = await failure(s.token());
    assert.ok(error instanceof ExecCredentialError);
    assert.equal(error.code, "Interactive");
    assert.match(error.message, /standard input is not a terminal/);
    assert.equal(runs, 0);
  });
});

describe("exec plugins that cannot prompt: failed once, not re-run on every retry", () => {
  /** A plugin that prompts on stderr and fails without a terminal, counting its runs. */
  function prompting(mode: "IfAvailable" | "Always" | "Never", terminal: () => boolean) {
    const clock = new ManualClock();
    const prompts: string[] = [];
    let runs = 0;
    const s = source({ interactiveMode: mode }, {
      clock,
      isTerminal: terminal,
      onStderr: (chunk) => prompts.push(new TextDecoder().decode(chunk)),
      run: (command) => {
        runs++;
        if (command.stdin === "inherit") return Promise.resolve(token("logged-in"));
        command.onStderr(new TextEncoder().encode("Password: "));
        return Promise.resolve({ exitCode: 1, stdout: "", stderr: "EOF reading password\n" });
      },
    });
    return { s, clock, prompts, runs: () => runs };
  }

  test("IfAvailable without a terminal: one run, one prompt; every retry gets that failure", async () => {
    const p = prompting("IfAvailable", () => false);
    const first = await failure(p.s.token());
    assert.ok(first instanceof ExecCredentialError);
    assert.equal(first.code, "Failed");
    assert.equal(first.exitCode, 1);
    assert.match(
      first.message,
      /exited with code 1: EOF reading password\nPassword:\nIt ran without a terminal \(interactiveMode IfAvailable, standard input is not one\), so it could not prompt\. Not run again for 5 minutes, or until a terminal is available or the user's exec configuration changes$/s,
    );
    for (let i = 0; i < 10; i++) {
      await p.clock.advance(NO_TERMINAL_RETRY_MS / 20); // an informer's backoff, well under 5 minutes
      assert.equal(await failure(p.s.token()), first, "the same failure, told once");
    }
    assert.equal(p.runs(), 1);
    assert.deepEqual(p.prompts, ["Password: "], "the prompt is printed once");
    await p.clock.advance(NO_TERMINAL_RETRY_MS / 2); // 5 minutes since the failure
    await failure(p.s.token());
    assert.equal(p.runs(), 2, "run again after the long backoff");
  });

  test("Always without a terminal: refused once, runs nothing, and the refusal is held too", async () => {
    const p = prompting("Always", () => false);
    const first = await failure(p.s.token());
    assert.ok(first instanceof ExecCredentialError);
    assert.equal(first.code, "Interactive");
    assert.match(first.message, /standard input is not a terminal, so it cannot prompt/);
    assert.match(first.message, /Not run again for 5 minutes/);
    assert.equal(await failure(p.s.token()), first);
    assert.equal(p.runs(), 0);
  });

  test("a terminal that appears, or invalidate(), lets the plugin run at once", async () => {
    let terminal = false;
    const p = prompting("IfAvailable", () => terminal);
    await failure(p.s.token());
    assert.equal(p.runs(), 1);
    terminal = true; // e.g. the program now runs in the foreground of a terminal
    assert.equal(await p.s.token(), "logged-in");
    assert.equal(p.runs(), 2);

    const q = prompting("IfAvailable", () => false);
    await failure(q.s.token());
    q.s.invalidate();
    await failure(q.s.token());
    assert.equal(q.runs(), 2);
  });

  test("interactiveMode Never: the plugin never prompts, so a failed run is retried at once", async () => {
    const p = prompting("Never", () => false);
    const first = await failure(p.s.token());
    assert.doesNotMatch((first as Error).message, /Not run again/);
    await failure(p.s.token());
    assert.equal(p.runs(), 2);
  });
});

describe("exec plugins: stderr as it is written", () => {
  test("each chunk reaches onStderr while the plugin still runs; a failure keeps a redacted tail", async () => {
    const seen: string[] = [];
    let emit!: (text: string) => void;
    let finish!: (result: ExecCommandResult) => void;
    const s = source({ env: [{ name: "SECRET", value: "hunter2-value" }] }, {
      onStderr: (chunk) => seen.push(new TextDecoder().decode(chunk)),
      run: (command) => {
        emit = (text) => command.onStderr(new TextEncoder().encode(text));
        return new Promise((resolve) => (finish = resolve));
      },
    });
    const pending = s.token();
    await settle();
    emit("To sign in, open https://login.example/device and enter the code ABCD-EFGH\n");
    assert.deepEqual(seen, [
      "To sign in, open https://login.example/device and enter the code ABCD-EFGH\n",
    ]);
    emit("still waiting for hunter2-value\n");
    assert.equal(seen.length, 2, "streamed as written, before the plugin exits");
    finish({ exitCode: 4, stdout: "" });
    const error = await failure(pending);
    assert.ok(error instanceof ExecCredentialError);
    assert.equal(error.code, "Failed");
    assert.match(error.stderr!, /enter the code ABCD-EFGH/);
    assert.match(error.stderr!, /still waiting for <redacted>/);
    assert.ok(!error.message.includes("hunter2-value"));
  });

  test("a sink that throws does not fail the plugin", async () => {
    const s = source({}, {
      onStderr: () => {
        throw new Error("sink broke");
      },
      run: (command) => {
        command.onStderr(new TextEncoder().encode("hello\n"));
        return Promise.resolve(token("fine"));
      },
    });
    assert.equal(await s.token(), "fine");
  });
});

describe("exec plugins: time limit and aborts", () => {
  test("past its time limit the plugin is stopped and its waiters fail with Timeout; the next call runs it again", async () => {
    const clock = new ManualClock();
    const runner = gatedRunner();
    const s = source({}, { clock, run: runner.run, timeoutMs: 30_000 });
    const a = failure(s.token());
    const b = failure(s.credential());
    await settle();
    assert.equal(runner.commands.length, 1, "one run for both");
    await clock.advance(29_999);
    assert.equal(runner.commands[0]!.signal.aborted, false);
    await clock.advance(1);
    assert.equal(runner.commands[0]!.signal.aborted, true, "the runner is told to stop it");
    for (const error of [await a, await b]) {
      assert.ok(error instanceof ExecCredentialError, String(error));
      assert.equal(error.code, "Timeout");
      assert.match(error.message, /did not finish within 30000 ms and was stopped/);
    }
    const next = s.token();
    await settle();
    assert.equal(runner.commands.length, 2);
    runner.release(token("fresh"));
    assert.equal(await next, "fresh");
    assert.equal(clock.pendingTimers, 0, "no timer left behind");
  });

  test("the default time limit is 5 minutes", async () => {
    const clock = new ManualClock();
    const runner = gatedRunner();
    const s = source({}, { clock, run: runner.run });
    const pending = failure(s.token());
    await settle();
    await clock.advance(DEFAULT_EXEC_TIMEOUT_MS - 1);
    assert.equal(runner.commands[0]!.signal.aborted, false);
    await clock.advance(1);
    assert.equal(((await pending) as ExecCredentialError).code, "Timeout");
  });

  test("an aborted caller fails alone; the plugin is stopped when every waiter has left", async () => {
    const clock = new ManualClock();
    const runner = gatedRunner();
    const s = source({}, { clock, run: runner.run });
    const first = new AbortController();
    const second = new AbortController();
    const a = failure(s.token({ signal: first.signal }));
    const b = s.token({ signal: second.signal });
    const c = s.token();
    await settle();
    first.abort(new Error("first gave up"));
    assert.equal(((await a) as Error).message, "first gave up");
    assert.equal(runner.commands[0]!.signal.aborted, false, "others still wait");
    runner.release(token("for-the-rest"));
    assert.equal(await c, "for-the-rest");
    assert.equal(await b, "for-the-rest");
  });

  test("when the last waiter aborts, the run is stopped and a later call starts a new one", async () => {
    const clock = new ManualClock();
    const runner = gatedRunner();
    const s = source({}, { clock, run: runner.run });
    const only = new AbortController();
    const a = failure(s.token({ signal: only.signal }));
    await settle();
    only.abort(new Error("stopped"));
    assert.equal(((await a) as Error).message, "stopped");
    assert.equal(runner.commands[0]!.signal.aborted, true);
    const next = s.token();
    await settle();
    assert.equal(runner.commands.length, 2);
    runner.release(token("again"));
    assert.equal(await next, "again");
  });

  test("an already aborted signal fails at once and runs nothing", async () => {
    const runner = gatedRunner();
    const s = source({}, { run: runner.run });
    const error = await failure(s.token({ signal: AbortSignal.abort(new Error("no")) }));
    assert.equal((error as Error).message, "no");
    assert.equal(runner.commands.length, 0);
  });
});

describe("exec plugins: values no process API accepts (25.4)", () => {
  const secret = "s3cr3t\0tail";
  const cases: [string, Partial<KubeconfigExec>, RegExp][] = [
    ["a NUL in the command", { command: `/bin/${secret}` }, /a command containing a NUL/],
    ["a NUL in an argument", { args: ["ok", secret] }, /args\[1\]\) containing a NUL/],
    [
      "a NUL in an env value",
      { env: [{ name: "A", value: "x" }, { name: "TOKEN", value: secret }] },
      /env\[1\]\.value\) containing a NUL/,
    ],
    ["a NUL in an env name", { env: [{ name: secret, value: "v" }] }, /env\[0\]\) whose name/],
    ["= in an env name", { env: [{ name: "A=s3cr3t", value: "v" }] }, /env\[0\]\) whose name/],
    [
      "an env entry with no name",
      { env: [{ name: "", value: "s3cr3t" }] },
      /env\[0\]\) with no name/,
    ],
  ];
  for (const [what, exec, pattern] of cases) {
    test(`${what} is refused up front, never echoing the value`, () => {
      let runs = 0;
      assert.throws(
        () =>
          source(exec, {
            run: () => {
              runs++;
              return Promise.resolve(token("t"));
            },
          }),
        (error: unknown) => {
          assert.ok(error instanceof ExecCredentialError, String(error));
          assert.equal(error.code, "InvalidConfig");
          assert.match(error.message, pattern);
          for (const text of [error.message, error.command, JSON.stringify(error)]) {
            assert.ok(!text.includes("s3cr3t"), `leaks the value: ${text}`);
          }
          return true;
        },
      );
      assert.equal(runs, 0);
    });
  }
});

describe("exec plugins: output limits (25.4)", () => {
  test("the runner is asked to stop at 1 MiB of stdout, and more is refused", async () => {
    let asked = 0;
    const s = source({}, {
      run: (command) => {
        asked = command.maxStdoutBytes;
        return Promise.resolve({ exitCode: 0, stdout: "x".repeat(command.maxStdoutBytes + 1) });
      },
    });
    const error = await failure(s.token());
    assert.equal(asked, 1024 * 1024);
    assert.ok(error instanceof ExecCredentialError);
    assert.equal(error.code, "InvalidOutput");
    assert.match(error.message, /more than 1048576 bytes of output/);
  });

  test("stderr kept for the error is bounded however much the plugin writes", async () => {
    const s = source({}, {
      run: (command) => {
        const chunk = new TextEncoder().encode("noise ".repeat(10_000));
        for (let i = 0; i < 200; i++) command.onStderr(chunk); // 12 MB
        command.onStderr(new TextEncoder().encode("the real reason"));
        return Promise.resolve({ exitCode: 1, stdout: "" });
      },
    });
    const error = await failure(s.token());
    assert.ok(error instanceof ExecCredentialError);
    assert.ok(error.stderr!.length <= 520, `${error.stderr!.length} characters kept`);
  });
});

describe("exec plugins: no time limit on request", () => {
  test("timeoutMs: Infinity sets no timer (as kubectl)", async () => {
    const clock = new ManualClock();
    const runner = gatedRunner();
    const s = source({}, { clock, run: runner.run, timeoutMs: Infinity });
    const pending = s.token();
    await settle();
    assert.equal(clock.pendingTimers, 0);
    runner.release(token("late"));
    assert.equal(await pending, "late");
    assert.throws(() => source({}, { timeoutMs: 0 }), RangeError);
  });
});

// kinformer-sim's arguments: defaults, both spellings of a value, and clear refusals.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { CommandUsageError, parseCommandArgs } from "../../src/command/command_options.ts";

describe("parseCommandArgs", () => {
  test("defaults: a free port on loopback, context kinformer-sim, the demo fixtures", () => {
    assert.deepEqual(parseCommandArgs([]), {
      port: 0,
      host: "127.0.0.1",
      kubeconfig: undefined,
      context: "kinformer-sim",
      fixtures: "demo",
      manifests: undefined,
      seed: undefined,
      churn: 0,
      dropWatchesEvery: 0,
      compactEvery: 0,
      chunkBytes: 0,
      statusEvery: 10,
    });
  });

  test("--name value and --name=value", () => {
    const options = parseCommandArgs([
      "--port=6443",
      "--kubeconfig",
      "/tmp/config",
      "--churn",
      "2.5",
      "--seed=7",
      "--drop-watches-every",
      "30",
    ]);
    assert.ok(options !== "help");
    assert.equal(options.port, 6443);
    assert.equal(options.kubeconfig, "/tmp/config");
    assert.equal(options.churn, 2.5);
    assert.equal(options.seed, 7);
    assert.equal(options.dropWatchesEvery, 30);
  });

  test("--help, anywhere", () => {
    assert.equal(parseCommandArgs(["--port", "1", "--help"]), "help");
    assert.equal(parseCommandArgs(["-h"]), "help");
  });

  test("refuses unknown options, missing values and values out of range", () => {
    const refused = (args: string[], message: RegExp): void => {
      assert.throws(() => parseCommandArgs(args), (error: unknown) => {
        assert.ok(error instanceof CommandUsageError);
        assert.match(error.message, message);
        return true;
      });
    };
    refused(["--prot", "1"], /unknown option "--prot"/);
    refused(["--port"], /--port needs a value/);
    refused(["--context="], /--context needs a value/);
    refused(["--port", "6443.5"], /--port must be an integer from 0 to 65535, got "6443.5"/);
    refused(["--churn", "-1"], /--churn must be a number from 0/);
    refused(["--chunk-bytes", "lots"], /--chunk-bytes must be an integer/);
  });
});

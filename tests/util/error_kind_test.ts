import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { KubeApiError, KubeNetworkError } from "../../src/client/errors.ts";
import type { Status } from "../../src/client/types.ts";
import { WatchDecodeError } from "../../src/watch/decode_error.ts";
import { LineTooLongError } from "../../src/watch/line_splitter.ts";
import {
  InitialEventsTimeoutError,
  WatchInactivityError,
} from "../../src/cache/reflector_errors.ts";
import { errorKindOf } from "../../src/util/error_kind.ts";
import { ClusterConfigError, KubeconfigParseError } from "../../src/config/errors.ts";
import { ExecCredentialError } from "../../src/config/exec_credential_error.ts";
import { YamlSyntaxError } from "../../src/config/yaml/yaml_syntax_error.ts";
import { createInformer } from "../../src/cache/informer.ts";
import { KubeClient } from "../../src/client/kube_client.ts";
import { pods } from "../../src/client/resource.ts";
import type { ErrorContext } from "../../src/util/error_context.ts";
import { ManualClock } from "../../src/testing/manual_clock.ts";

function apiError(code: number, status?: Omit<Status, "kind" | "code">): KubeApiError {
  return status === undefined
    ? new KubeApiError({ code, bodySnippet: "plain text" })
    : KubeApiError.fromStatus({ kind: "Status", status: "Failure", code, ...status });
}

describe("errorKindOf", () => {
  test("401 is unauthorized, 403 forbidden, 404 not-found", () => {
    assert.equal(errorKindOf(apiError(401, { reason: "Unauthorized" })), "unauthorized");
    assert.equal(errorKindOf(apiError(403, { reason: "Forbidden" })), "forbidden");
    assert.equal(errorKindOf(apiError(404, { reason: "NotFound" })), "not-found");
  });

  test("400 and 422 are invalid (e.g. a server refusing a streaming list)", () => {
    assert.equal(errorKindOf(apiError(400, { reason: "BadRequest" })), "invalid");
    assert.equal(errorKindOf(apiError(422, { reason: "Invalid" })), "invalid");
  });

  test("410 Expired is expired", () => {
    const err = apiError(410, { reason: "Expired", message: "too old resource version: 1 (2)" });
    assert.equal(errorKindOf(err), "expired");
  });

  test("410 with the old reason Gone (servers up to 1.17) is expired", () => {
    assert.equal(errorKindOf(apiError(410, { reason: "Gone" })), "expired");
  });

  test("a bare HTTP 410 without a Status is expired", () => {
    assert.equal(errorKindOf(apiError(410)), "expired");
  });

  test("429 is rate-limited, also with a plain-text body", () => {
    assert.equal(errorKindOf(apiError(429)), "rate-limited");
    assert.equal(errorKindOf(apiError(429, { reason: "TooManyRequests" })), "rate-limited");
  });

  test("5xx is server", () => {
    assert.equal(errorKindOf(apiError(500, { reason: "InternalError" })), "server");
    assert.equal(errorKindOf(apiError(503)), "server");
    assert.equal(errorKindOf(apiError(504, { reason: "Timeout" })), "server");
  });

  test("504 with a ResourceVersionTooLarge cause is too-large-rv", () => {
    const err = apiError(504, {
      reason: "Timeout",
      message: "Too large resource version",
      details: {
        causes: [{ type: "ResourceVersionTooLarge", message: "Too large resource version" }],
        retryAfterSeconds: 1,
      },
    });
    assert.equal(errorKindOf(err), "too-large-rv");
  });

  test("other client errors are other", () => {
    assert.equal(errorKindOf(apiError(409, { reason: "Conflict" })), "other");
  });

  test("a KubeNetworkError is network", () => {
    const err = new KubeNetworkError(
      "GET http://127.0.0.1:1/api/v1/pods",
      new TypeError("fetch failed"),
    );
    assert.equal(errorKindOf(err), "network");
  });

  test("a bare TypeError (how fetch and streams fail) is network", () => {
    assert.equal(errorKindOf(new TypeError("network error")), "network");
  });

  test("a WatchDecodeError or an oversized line is decode", () => {
    const decode = new WatchDecodeError({
      reason: "html",
      lineNumber: 1,
      byteOffset: 0,
      line: "<html>",
    });
    assert.equal(errorKindOf(decode), "decode");
    const long = new LineTooLongError({ limit: 10, lineNumber: 3, byteOffset: 100 });
    assert.equal(errorKindOf(long), "decode");
  });

  test("the reflector's own timeouts are inactivity and initial-events-timeout", () => {
    assert.equal(errorKindOf(new WatchInactivityError(150_000)), "inactivity");
    assert.equal(errorKindOf(new InitialEventsTimeoutError(60_000)), "initial-events-timeout");
  });

  test("anything else is other", () => {
    assert.equal(errorKindOf(new Error("boom")), "other");
    assert.equal(errorKindOf("a string"), "other");
    assert.equal(errorKindOf(undefined), "other");
  });
});

describe("reflector errors", () => {
  test("WatchInactivityError and InitialEventsTimeoutError carry their limits and names", () => {
    const inactivity = new WatchInactivityError(120_000);
    assert.equal(inactivity.name, "WatchInactivityError");
    assert.equal(inactivity.inactivityMs, 120_000);
    assert.match(inactivity.message, /120000 ms/);
    const initial = new InitialEventsTimeoutError(60_000);
    assert.equal(initial.name, "InitialEventsTimeoutError");
    assert.equal(initial.timeoutMs, 60_000);
    assert.match(initial.message, /initial-events-end/);
  });
});

describe("errors carry their kind from where they are raised", () => {
  test("406 Not Acceptable is unsupported: a request that cannot succeed as configured", () => {
    const err = apiError(406, { reason: "NotAcceptable" });
    assert.equal(err.kind, "unsupported");
    assert.equal(errorKindOf(err), "unsupported");
  });

  test("each error class sets its kind at construction", () => {
    assert.equal(apiError(410).kind, "expired");
    assert.equal(apiError(503).kind, "server");
    assert.equal(new KubeNetworkError("GET /", new TypeError("x")).kind, "network");
    assert.equal(new WatchInactivityError(1).kind, "inactivity");
    assert.equal(new InitialEventsTimeoutError(1).kind, "initial-events-timeout");
    const decode = new WatchDecodeError({
      reason: "html",
      lineNumber: 1,
      byteOffset: 0,
      line: "<",
    });
    assert.equal(decode.kind, "decode");
    assert.equal(decode.reason, "html");
  });

  test("a foreign error's own kind field is not taken for one of ours", () => {
    assert.equal(errorKindOf(Object.assign(new Error("x"), { kind: "malformed-json" })), "other");
    assert.equal(errorKindOf({ kind: "server" }), "server");
    assert.equal(errorKindOf(Object.assign(new TypeError("x"), { kind: 3 })), "network");
  });
});

describe("configuration and credential errors carry their kind", () => {
  const execFailure = (): ExecCredentialError =>
    new ExecCredentialError('exec plugin "aws" exited with code 255', {
      code: "Failed",
      command: "aws",
      exitCode: 255,
    });

  test("config for a configuration that cannot be used or read, credentials for a plugin", () => {
    const config = new ClusterConfigError("no context", { code: "NoCurrentContext" });
    assert.equal(config.kind, "config");
    assert.equal(new KubeconfigParseError({ reason: "tabs", line: 1 }).kind, "config");
    assert.equal(new YamlSyntaxError({ reason: "tabs", line: 1 }).kind, "config");
    assert.equal(execFailure().kind, "credentials");
    assert.equal(errorKindOf(execFailure()), "credentials");
  });

  test("a request whose credential plugin failed is a credentials error, not network", async () => {
    const client = new KubeClient({
      server: "https://cluster.test",
      fetch: () => Promise.reject(execFailure()),
    });
    await assert.rejects(client.list(pods), (error: unknown) => {
      assert.ok(error instanceof KubeNetworkError, "still the client's error for no answer");
      assert.ok(error.cause instanceof ExecCredentialError);
      assert.equal(error.kind, "credentials");
      return true;
    });
    const plain = new KubeClient({
      server: "https://cluster.test",
      fetch: () => Promise.reject(new TypeError("fetch failed")),
    });
    await assert.rejects(plain.list(pods), (error: KubeNetworkError) => error.kind === "network");
  });

  test("the informer files an exec plugin failure under credentials", async () => {
    const clock = new ManualClock();
    const seen: ErrorContext[] = [];
    const informer = createInformer(
      new KubeClient({
        server: "https://cluster.test",
        fetch: () => Promise.reject(execFailure()),
      }),
      { resource: pods, clock, onError: (_error, context) => void seen.push(context) },
    );
    informer.start();
    for (let i = 0; i < 10 && seen.length === 0; i++) await clock.advance(0);
    await informer.stop();
    assert.equal(seen[0]?.kind, "credentials");
    assert.equal(informer.health().errors.credentials, seen.length);
    assert.equal(informer.health().errors.network, undefined);
  });
});

/**
 * The `/healthz` and `/readyz` answers of a manager, in controller-runtime's (and the API
 * server's) format: `ok` when every check passes; otherwise, or with `?verbose`, one line per
 * check (`[+]name ok`, `[-]name failed: reason withheld`) and a verdict line; 500 when a check
 * fails; `/<endpoint>/<check>` runs one check. Internal.
 * @module
 */

/** One named check: undefined when it passes, else why it fails (not sent to the client). */
export interface HealthCheck {
  readonly name: string;
  readonly check: () => string | undefined;
}

const TEXT = { "Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff" };

/** What may not appear in a `Host` header: it would end the authority of a URL built from it. */
const NOT_AUTHORITY = /[/?#@\\\s]/;

/**
 * The path and query `request` asked for, whatever its `Host` header says; a 400 answer when
 * that header is not an authority. Servers that build `request.url` from `Host` (`Deno.serve`
 * does) turn `GET /metrics` with `Host: x/healthz?` into `http://x/healthz?/metrics`; the path
 * sent cannot be recovered from that URL, so such a request is refused, as Go's `net/http`
 * refuses an invalid `Host`. A relative `request.url` (Bun gives `/metrics` for a bad `Host`)
 * is read against a fixed origin.
 */
export function requestTarget(request: Request): URL | Response {
  const host = request.headers.get("host");
  if (host !== null && NOT_AUTHORITY.test(host)) {
    return new Response("400 Bad Request: invalid Host header\n", { status: 400, headers: TEXT });
  }
  return new URL(request.url, "http://localhost");
}

/** Answers `GET`/`HEAD` `path` (`/healthz`, `/healthz/<check>`) from `checks`. */
export function healthResponse(
  endpoint: "healthz" | "readyz",
  url: URL,
  method: string,
  checks: readonly HealthCheck[],
): Response {
  const sub = url.pathname.slice(endpoint.length + 2);
  let selected = checks;
  if (sub !== "") {
    selected = checks.filter((c) => c.name === sub);
    if (selected.length === 0) {
      return new Response("404 page not found\n", { status: 404, headers: TEXT });
    }
  }
  const results = selected.map((c) => ({ name: c.name, failure: c.check() }));
  const failed = results.some((r) => r.failure !== undefined);
  const verbose = url.searchParams.has("verbose");
  let body: string;
  if (!failed && !verbose) body = "ok";
  else {
    const lines = results.map((r) =>
      r.failure === undefined ? `[+]${r.name} ok` : `[-]${r.name} failed: reason withheld`
    );
    lines.push(`${endpoint} check ${failed ? "failed" : "passed"}`);
    body = lines.join("\n") + "\n";
  }
  return new Response(method === "HEAD" ? null : body, {
    status: failed ? 500 : 200,
    headers: TEXT,
  });
}

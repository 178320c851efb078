/**
 * Client certificate rotation for a kubeconfig whose user names `client-certificate` and
 * `client-key` FILES (internal, portable). As client-go does it: the files are read again when
 * they may have changed, new connections use the new pair, and the connections made with the
 * old pair are closed (an open watch then reconnects with the new one).
 *
 * When: at a request, at most once per {@linkcode CERT_REFRESH_MS} (one second) on the injected
 * clock, as client-go's `cachingCertificateLoader` reads the files at most once a second when
 * its transport opens a connection (`ReloadTLSFiles`, set for kubeconfig certificate files).
 * This layer cannot see when a runtime's `fetch` opens a connection, so it checks at every
 * request instead: a rotated pair is used from the first request a second or more after the
 * last read, and so by the next new connection. No timer (nothing to leak), concurrent requests
 * share one read, and after a request that failed to connect (a failed TLS handshake: the server
 * no longer takes the old certificate) or was answered 401 the files are read again at once.
 * Until client-go's loader this library read them every 5 minutes (the period of client-go's
 * certificate-callback rotation), so a rotated certificate waited while the old one still worked.
 *
 * How: each pair gets its own `fetch` built by the runtime (Node: new agents; Deno: a new
 * `Deno.HttpClient`; Bun: new per-request `tls` options in a `Bun.FetchSession` of their own,
 * whose `close()` ends its idle connections, from Bun 1.4.2). On a change the previous one is
 * closed, and requests still running on it are aborted, so that no connection keeps the old
 * certificate. A pair that cannot be used (a file missing or half-written, the key not
 * matching the certificate) is reported and the previous pair kept until the next check.
 * @module
 */
import type { Clock } from "../util/clock.ts";
import type { OnError } from "../util/error_context.ts";
import { ErrorReporter } from "../util/error_reporter.ts";
import type { HostFetch, TransportConfig } from "./config_loader_options.ts";

/**
 * Client certificate files are read at most once per this many ms (client-go's
 * `cachingCertificateLoader`: at most once a second).
 */
export const CERT_REFRESH_MS = 1000;

/** Options of {@linkcode rotatingClientCertificate}. */
export interface RotatingCertificateOptions {
  /** The transport settings with the pair read at load (`certData`, `keyData`). */
  transport: TransportConfig;
  /** Reads the certificate and key files again (PEM text). */
  read(): Promise<{ certData: string; keyData: string }>;
  /** Builds a `fetch` for settings (throws when the runtime cannot use them). */
  build(transport: TransportConfig): HostFetch | undefined;
  /** Time source of the periodic check. */
  clock: Clock;
  /**
   * Told when a new pair cannot be read or used (the previous pair stays in use), with the one
   * `ErrorContext` of kinformer (phase `credentials`). It replaces the default printing.
   * @default prints as every long-running object of kinformer does: the first failure of each
   * kind at once, then at most one line per kind per minute
   */
  onError?: OnError | undefined;
}

/** One pair and the `fetch` built for it. */
interface Generation {
  certData: string | undefined;
  keyData: string | undefined;
  built: HostFetch | undefined;
  /** Aborts the requests made on this generation when it is replaced. */
  retire: AbortController;
}

/**
 * A {@linkcode HostFetch} over `options.build(options.transport)` that re-reads the client
 * certificate files and rebuilds itself as the module documentation says. The first pair is
 * built now, so that settings the runtime cannot apply fail the load. Undefined when `build`
 * gives no `fetch` (the runtime's own applies).
 */
export function rotatingClientCertificate(
  options: RotatingCertificateOptions,
): HostFetch | undefined {
  const { clock } = options;
  const generationOf = (transport: TransportConfig): Generation => ({
    certData: transport.certData,
    keyData: transport.keyData,
    built: options.build(transport),
    retire: new AbortController(),
  });
  let current = generationOf(options.transport);
  if (current.built === undefined) return undefined;
  let checkedAt = clock.now();
  let stale = false;
  let pending: Promise<void> | undefined;
  let closed = false;
  const reporter = new ErrorReporter({
    source: "client certificate files",
    onError: options.onError,
    clock,
  });

  const reload = async (): Promise<void> => {
    try {
      const pair = await options.read();
      if (closed || (pair.certData === current.certData && pair.keyData === current.keyData)) {
        reporter.healthy();
        return;
      }
      const next = generationOf({ ...options.transport, ...pair });
      const previous = current;
      current = next;
      previous.retire.abort(
        new TypeError(
          "the client certificate changed: connections made with the old one are closed",
        ),
      );
      previous.built?.close();
      reporter.healthy();
    } catch (error) {
      reporter.report(error, {
        phase: "credentials",
        action: "the previous certificate stays in use until the files can be used",
      });
    }
  };

  const check = (): Promise<void> | undefined => {
    if (!stale && clock.now() - checkedAt < CERT_REFRESH_MS) return pending;
    stale = false;
    checkedAt = clock.now();
    pending ??= reload().finally(() => {
      pending = undefined;
    });
    return pending;
  };

  return {
    fetch: async (request) => {
      if (closed) throw new TypeError("these client options were closed (close() was called)");
      const checking = check();
      if (checking !== undefined) await checking;
      request.signal.throwIfAborted();
      const generation = current;
      const signal = AbortSignal.any([request.signal, generation.retire.signal]);
      try {
        const response = await generation.built!.fetch(new Request(request, { signal }));
        if (response.status === 401) stale = true;
        return response;
      } catch (error) {
        // A request that could not connect (the server may refuse the old certificate now):
        // the files are read again before the next one.
        if (!request.signal.aborted && !generation.retire.signal.aborted) stale = true;
        throw error;
      }
    },
    close: () => {
      if (closed) return;
      closed = true;
      current.retire.abort(new TypeError("these client options were closed"));
      current.built?.close();
    },
  };
}

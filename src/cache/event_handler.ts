/**
 * Event handlers: callbacks fed from a listener's own buffer, one event at a time.
 * @module
 */
import type { KubeObject, KubeObjectLike } from "../client/types.ts";
import { Waiters } from "../util/wait_for.ts";
import type { InformerEvent } from "./informer_event.ts";
import type { Listener } from "./listener.ts";

/**
 * Callbacks of {@linkcode SharedInformer.addEventHandler}. A callback may return a promise: the
 * next event for this handler waits for it (other listeners are not held up).
 */
export interface EventHandler<T extends KubeObjectLike = KubeObject> {
  /** A new object; `isInInitialList` for the handler's initial population. */
  onAdd?(object: T, isInInitialList: boolean): void | Promise<void>;
  /** `newObject` replaced `oldObject` (the same object on a resync). */
  onUpdate?(oldObject: T, newObject: T): void | Promise<void>;
  /** `object` is the last known state; `finalStateUnknown` when inferred from a relist. */
  onDelete?(object: T, finalStateUnknown: boolean): void | Promise<void>;
  /** The handler has received its whole initial population. */
  onSynced?(): void | Promise<void>;
}

/** Handle returned by {@linkcode SharedInformer.addEventHandler}. */
export interface HandlerRegistration {
  /** True once this handler has been called for every object of its initial population. */
  hasSynced(): boolean;
  /**
   * Resolves once {@linkcode HandlerRegistration.hasSynced} is true. Rejects with the signal's
   * reason on abort, or with an Error if the handler is removed (or the informer stops) first.
   */
  waitForSync(options?: { signal?: AbortSignal | undefined }): Promise<void>;
  /** Stops delivering to this handler. */
  remove(): void;
}

/** Calls the handler's callback for one event. */
export function dispatchEvent<T extends KubeObjectLike>(
  handler: EventHandler<T>,
  ev: InformerEvent<T>,
): void | Promise<void> {
  switch (ev.type) {
    case "add":
      return handler.onAdd?.(ev.object, ev.isInInitialList);
    case "update":
      return handler.onUpdate?.(ev.oldObject, ev.object);
    case "delete":
      return handler.onDelete?.(ev.object, ev.finalStateUnknown);
    case "synced":
      return handler.onSynced?.();
  }
}

/**
 * Feeds `listener`'s events to `handler`, one at a time (awaiting a returned promise before the
 * next); a throwing callback goes to `onError` and delivery goes on. Internal.
 */
export function attachHandler<T extends KubeObjectLike>(
  listener: Listener<T>,
  handler: EventHandler<T>,
  onError: (error: unknown) => void,
  remove: () => void,
): HandlerRegistration {
  let running = false;
  const syncWaiters = new Waiters();
  const pump = async (): Promise<void> => {
    if (running) return;
    running = true;
    try {
      for (;;) {
        const ev = listener.shift();
        if (ev === undefined) break;
        try {
          const r = dispatchEvent(handler, ev);
          if (r !== undefined) await r;
        } catch (error) {
          onError(error);
        }
        if (ev.type === "synced") syncWaiters.wake();
      }
    } finally {
      running = false;
    }
    if (!listener.closed) listener.onWake(() => void pump());
    else syncWaiters.wake();
  };
  void pump();
  const waitForSync = (options: { signal?: AbortSignal | undefined } = {}): Promise<void> =>
    syncWaiters.wait(() => listener.synced ? "done" : listener.closed ? "failed" : "pending", {
      failure: () => new Error("event handler removed before it synced"),
      signal: options.signal,
    });
  return { hasSynced: () => listener.synced, waitForSync, remove };
}

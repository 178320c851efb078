/**
 * What the list and watch handlers need from the cluster that owns them.
 * @module
 */
import type { BodyChannel, ChannelEnv } from "./response_body.ts";
import type { Store } from "../../store/object_store.ts";
import type { ResourceState } from "../../store/resource_state.ts";
import type { ResourceInfo } from "../../model/registry/served_resources.ts";
import type { ServedView } from "./served_view.ts";
import type { WatchEventFault, WatchFaults } from "../faults/cluster_faults.ts";

/** An open watch, as the cluster reaches it (faults drop it, `close()` shuts it down). */
export interface OpenWatch {
  /** Drops the connection (a network error after what is queued). */
  drop(): void;
  /** Ends it for the cluster's shutdown. */
  shutdown(): void;
}

/** Cluster services used by the request handlers. */
export interface HandlerContext {
  /** Object store. */
  readonly store: Store;
  /** Shared channel environment (clock, rng, stall and chunking faults). */
  readonly env: ChannelEnv;
  /** Interval of periodic bookmarks. */
  readonly bookmarkIntervalMs: number;
  /** Bytes a watch may have queued before the server closes it as too slow. */
  readonly maxWatchBufferBytes: number;
  /** Whether streaming lists (`sendInitialEvents`) are enabled. */
  readonly watchListEnabled: boolean;
  /** Whether the initial-events-end bookmark is suppressed (a fault). */
  readonly omitInitialEventsEnd: boolean;
  /** Lists at resourceVersion "0" are served whole from the watch cache (`limit` ignored). */
  readonly watchCache: boolean;
  /** The served view of a resource (its storage, and conversions for a view of another's). */
  view(info: ResourceInfo): ServedView;
  /** Consumes the faults armed for a new watch of `state` (drop/close after N, bad line). */
  takeWatchFaults(state: ResourceState): WatchFaults;
  /** Consumes a "close this streaming list right after its end bookmark" fault for `state`. */
  takeCloseAfterInitialEventsEnd(state: ResourceState): boolean;
  /** Consumes the fault armed for one event of `state` about to be sent (lose or corrupt it). */
  takeEventFault(
    state: ResourceState,
    type: "ADDED" | "MODIFIED" | "DELETED",
  ): WatchEventFault | undefined;
  /** Starts tracking an open body (so close() and faults reach it). */
  track(channel: BodyChannel): void;
  /** Stops tracking a finished body. */
  untrack(channel: BodyChannel): void;
  /** Registers an open watch. */
  addWatch(watch: OpenWatch): void;
  /** Unregisters a finished watch. */
  removeWatch(watch: OpenWatch): void;
}

/**
 * The decision of a consistency check as a pure function: given a consistent list of the server
 * at resource version L and the cache as it is now (at L or later), which keys differ. Kept
 * apart from the I/O so each rule has its own table of tests.
 * @module
 */
import type { KubeObjectLike } from "../client/types.ts";
import { compareResourceVersions } from "../util/resource_version.ts";

/** What a consistency check compares of one object: its identity and its version. */
export interface ObjectVersion {
  /** `metadata.uid`. */
  uid: string | undefined;
  /** `metadata.resourceVersion`. */
  resourceVersion: string | undefined;
}

/** One key where the cache differs from the server. */
export interface DriftEntry {
  /** The cache key (`namespace/name` or `name`). */
  key: string;
  /** What the server listed; absent for an `extra` key. */
  server?: ObjectVersion | undefined;
  /** What the cache holds; absent for a `missing` key. */
  cache?: ObjectVersion | undefined;
}

/** What {@linkcode compareCacheWithList} compares. */
export interface CacheComparisonInput {
  /** The consistent list: key → uid and resourceVersion. */
  listed: ReadonlyMap<string, ObjectVersion>;
  /** The list's resource version (L). The cache must have reached it. */
  resourceVersion: string;
  /** The cache now. */
  cache: {
    get(key: string): KubeObjectLike | undefined;
    entries(): Iterable<[string, KubeObjectLike]>;
  };
  /**
   * Every key the cache changed (added, updated or deleted) since before the list was asked
   * for, with the resource version of the last change (for a delete: of the deletion).
   */
  changes: ReadonlyMap<string, string | undefined>;
  /**
   * The server's resource version is behind the cache's (it went backwards: etcd restored from
   * a backup). Resource-version order then means nothing: every key the cache did not change
   * since the check began is compared exactly. @default false
   */
  serverBehind?: boolean | undefined;
}

/** The outcome of {@linkcode compareCacheWithList}; entries are sorted by key. */
export interface CacheComparison {
  /** Keys the server has and the cache lacks. */
  missing: DriftEntry[];
  /** Keys the cache has and the server does not. */
  extra: DriftEntry[];
  /** Keys held by both, with another uid or resourceVersion in the cache. */
  stale: DriftEntry[];
  /** Keys compared. */
  compared: number;
  /** Keys not compared: the cache holds (or deleted) a state newer than the list. */
  changedAfterList: number;
}

/** An object's identity and version. */
function versionOf(object: KubeObjectLike): ObjectVersion {
  return { uid: object.metadata?.uid, resourceVersion: object.metadata?.resourceVersion };
}

/**
 * Compares the cache with a consistent list at resource version L, once the cache has applied
 * everything up to L (its resource version is L or later). Since then the cache may have moved
 * on; a key whose state in the cache is newer than the list is not compared:
 *
 * - a cached object whose resourceVersion is after L (created or changed after the list);
 * - a key deleted by the cache since the check began, by a deletion after L (a deleted
 *   object carries the deletion's resource version) or of unknown order;
 * - a cached object whose resourceVersion cannot be ordered (not a decimal integer) and that
 *   changed since the check began.
 *
 * Every other key must be exactly as listed: absent from the cache is `missing`, absent from
 * the list is `extra`, another uid or resourceVersion is `stale`. The cache's state before the
 * check began is at or before L (the list was asked for later), so a change the cache never
 * applied shows, and one that simply happened after L does not. When the server is behind the
 * cache (`serverBehind`), only the keys changed since the check began are left out.
 */
export function compareCacheWithList(input: CacheComparisonInput): CacheComparison {
  const { listed, resourceVersion: listRv, cache, changes } = input;
  const after = (rv: string | undefined): boolean | undefined => {
    if (input.serverBehind) return undefined;
    const order = rv === undefined ? undefined : compareResourceVersions(rv, listRv);
    return order === undefined ? undefined : order > 0;
  };
  /** Whether the cache's state of `key` is newer than the list (so not comparable). */
  const newer = (key: string, cached: KubeObjectLike | undefined): boolean => {
    if (cached !== undefined) return after(cached.metadata?.resourceVersion) ?? changes.has(key);
    if (!changes.has(key)) return false;
    return after(changes.get(key)) ?? true;
  };
  const out: CacheComparison = {
    missing: [],
    extra: [],
    stale: [],
    compared: 0,
    changedAfterList: 0,
  };
  for (const [key, server] of listed) {
    const cached = cache.get(key);
    if (newer(key, cached)) {
      out.changedAfterList++;
      continue;
    }
    out.compared++;
    if (cached === undefined) {
      out.missing.push({ key, server });
      continue;
    }
    const mine = versionOf(cached);
    if (mine.uid !== server.uid || mine.resourceVersion !== server.resourceVersion) {
      out.stale.push({ key, server, cache: mine });
    }
  }
  for (const [key, cached] of cache.entries()) {
    if (listed.has(key)) continue;
    if (newer(key, cached)) {
      out.changedAfterList++;
      continue;
    }
    out.compared++;
    out.extra.push({ key, cache: versionOf(cached) });
  }
  for (const entries of [out.missing, out.extra, out.stale]) {
    entries.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }
  return out;
}

/**
 * The options of the simulated cluster and their validation.
 * @module
 */
import { type Clock } from "@kinformer/kinformer/cache";
import { systemClock } from "@kinformer/kinformer/internal";
import { checkBoolean, checkOptionsObject, requireNumber } from "@kinformer/kinformer/internal";
import { describeKind } from "@kinformer/kinformer/internal";
import type { RecordedRequest } from "../server/request_log.ts";
import {
  type ResourceInfo,
  type ServedResource,
  servedResources,
} from "../model/registry/served_resources.ts";
import type { AnyResourceDescriptor } from "@kinformer/kinformer/client";
import type { CustomResourceDefinitionObject } from "../model/kinds/custom_resources.ts";
import { DEFAULT_MAX_JSON_DEPTH } from "../core/servable_json.ts";
import {
  AuthorizationPolicy,
  type ClusterAuthorization,
} from "../handlers/authorization/authorization_policy.ts";

/** Constructor options of `SimulatedCluster`. */
export interface SimulatedClusterOptions {
  /**
   * Time source for timestamps, bookmarks, `timeoutSeconds`, chunk delays and churn. Pass a
   * `ManualClock` in tests.
   * @default the system clock (`Date.now` and the global timers)
   */
  clock?: Clock;
  /**
   * Seed of every random choice (uids, generated names, chunk sizes, churn).
   * @default 1
   */
  seed?: number;
  /**
   * More resources to serve next to the built-in ones (pods, configmaps, namespaces,
   * deployments, leases, core and `events.k8s.io` Events and the `widgets` custom resource):
   * your CRDs, as descriptors (from `defineResource`), as `{ resource, printerColumns, schema,
   * ... }` or as the CustomResourceDefinition objects of their manifests, or built-in resources
   * the cluster does not serve by default, such as services or secrets. Each is served like the
   * built-in ones (list, watch, get, every write, server-side apply, discovery, OpenAPI and
   * Tables for kubectl), namespaced or cluster-scoped as its descriptor says; a built-in one
   * with kube-apiserver's short names, subresources and printer, a custom one with a `status`
   * subresource unless `{ resource, statusSubresource: false }`. Each custom resource given
   * here is also listed as a CustomResourceDefinition object (`kubectl get crd`). CRDs are served
   * by default: one created through the API makes its resources served as kube-apiserver does
   * (discovery, OpenAPI, every verb, status conditions; deleting it deletes its resources).
   * @default []
   */
  resources?: ReadonlyArray<
    AnyResourceDescriptor | ServedResource | CustomResourceDefinitionObject
  >;
  /**
   * When set, requests without `Authorization: Bearer <token>` get a 401 Status, unless a
   * client certificate authenticated them (served over HTTPS with `tls.clientCa`).
   * @default undefined (no authentication)
   */
  token?: string;
  /**
   * Events kept per resource for watch resumption and for serving older snapshots (exact
   * lists, continue tokens). Older resourceVersions answer 410.
   * @default 10000
   */
  historyLimit?: number;
  /**
   * Interval of BOOKMARK events on watches with `allowWatchBookmarks=true`.
   * @default 60000
   */
  bookmarkIntervalMs?: number;
  /**
   * Whether streaming lists (`sendInitialEvents=true`) are enabled; when off they get 422.
   * @default true
   */
  watchList?: boolean;
  /**
   * Whether a streaming list (`sendInitialEvents=true`) is gzip-compressed when the client asks
   * for gzip (`Accept-Encoding`), with one gzip member per flush (roughly one per event), as
   * kube-apiserver 1.37 does (`WatchListCompression`, beta, on by default). Ordinary watches
   * are never compressed. `false` answers streaming lists uncompressed, as before 1.37.
   * @default true
   */
  watchListCompression?: boolean;
  /**
   * Whether the server has a watch cache, as real API servers do by default: lists at
   * resourceVersion "0" are then served whole from it and `limit` is ignored (a big cluster's
   * first list is one large response). `false` models a server without one: every list honours
   * `limit`. Lists at other resource versions page either way.
   * @default true
   */
  watchCache?: boolean;
  /**
   * Logs every request: `true` prints one line with `console.log`, a function receives it.
   * @default false
   */
  logRequests?: boolean | ((request: RecordedRequest) => void);
  /**
   * Bytes a watch may have queued (unread by its client) before the server closes it as too
   * slow, like the real API server does; the client then re-watches from its last RV. Large
   * by default so synchronous bursts (`churn(100_000)`) reach a reader that has not read yet.
   * @default 1073741824 (1 GiB)
   */
  maxWatchBufferBytes?: number;
  /**
   * Browser origins allowed to call the cluster (CORS). Each entry is an origin
   * (`"https://app.example:8443"`; the port may be `*`: `"http://localhost:*"` matches any
   * port or none), `"null"`, a RegExp tested against the whole `Origin` header, or `"*"` for
   * any origin. A request whose `Origin` is not allowed gets 403 and is not served, preflight
   * or not; requests without `Origin` (anything but a browser) are always served. Allowed
   * preflights may ask for `Accept`, `Authorization`, `Content-Type` and `User-Agent`.
   * The default lets only pages on this machine in: keep it unless the page is elsewhere.
   * @default LOOPBACK_ORIGINS (`http://` and `https://` `localhost`, `127.0.0.1`, `[::1]`, any port)
   */
  corsAllowedOrigins?: ReadonlyArray<string | RegExp>;
  /**
   * Largest request body in bytes; a larger one gets 413 `RequestEntityTooLarge` (read no
   * further than the limit), as kube-apiserver answers with its default limit.
   * @default 3145728 (3 MiB)
   */
  maxRequestBodyBytes?: number;
  /**
   * Deepest JSON nesting accepted (the outermost object is level 1): a request body nested
   * deeper gets 400, and an object nested deeper (written through the control API, `seed` or
   * built by a JSON patch) is refused with a 400 `KubeApiError` before it is stored, so it can
   * never break a later LIST or watch. Raising it much past 1000 risks the call stack:
   * Node's `JSON.stringify` fails at about 4,400 levels.
   * @default 1000
   */
  maxJsonDepth?: number;
  /**
   * How many of the latest requests `requests` keeps (older ones are dropped); `0` keeps none.
   * @default 10000
   */
  requestLogLimit?: number;
  /**
   * Who may do what: every resource request is checked before it is served, and a denied one
   * gets a 403 `Forbidden` Status worded as kube-apiserver's (`pods is forbidden: User
   * "system:anonymous" cannot list resource "pods" in API group "" in the namespace "default"`),
   * so a controller can be tested against a missing permission. `SelfSubjectAccessReview` and
   * `SelfSubjectRulesReview` answer from it (`kubectl auth can-i`).
   *
   * Either a list of RBAC-style rules (`{ verbs, apiGroups, resources, resourceNames?,
   * namespaces? }` or `{ verbs, nonResourceURLs }`; what no rule allows is denied), or a function
   * of the request's attributes (`user`, `verb`, `apiGroup`, `resource`, `subresource`,
   * `namespace`, `name`, ...) returning `true`/`false` or `{ allowed, reason }`. The user is the
   * client certificate's CN (over HTTPS), `kinformer` for a request that carried the cluster's
   * `token`, else `system:anonymous`. Discovery, OpenAPI, `/version`, health paths and the self
   * reviews are always allowed, as kube-apiserver's default roles allow them to everyone.
   * @default undefined (everything is allowed)
   */
  authorization?: ClusterAuthorization;
  /**
   * Create a missing namespace when an object is created in it, over HTTP and through the
   * control API, as kube-apiserver does with the `NamespaceAutoProvision` admission plugin
   * enabled. Off, the default, the cluster behaves as a standard one: `default`, `kube-system`,
   * `kube-public` and `kube-node-lease` exist from the start, and a create in any other
   * namespace that was not created first is a 404 `namespaces "x" not found`. A dry run never
   * creates a namespace. (`seed` and `churn` always create the namespaces they fill.)
   * @default false
   */
  autoCreateNamespaces?: boolean;
}

/** Options after validation, defaults applied. */
export interface ResolvedClusterOptions {
  /** Time source. */
  readonly clock: Clock;
  /** Every served resource: the built-in ones, then `options.resources`. */
  readonly resources: readonly ResourceInfo[];
  /** Seed. */
  readonly seed: number;
  /** Bearer token, if required. */
  readonly token: string | undefined;
  /** Events kept per resource. */
  readonly historyLimit: number;
  /** Bookmark interval. */
  readonly bookmarkIntervalMs: number;
  /** Whether streaming lists are enabled. */
  readonly watchList: boolean;
  /** Whether streaming lists are gzip-compressed per flush for clients that ask. */
  readonly watchListCompression: boolean;
  /** Whether lists at resourceVersion "0" ignore `limit`. */
  readonly watchCache: boolean;
  /** The `logRequests` option as given (validated by the request log). */
  readonly logRequests: boolean | ((request: RecordedRequest) => void) | undefined;
  /** Watch buffer limit. */
  readonly maxWatchBufferBytes: number;
  /** The `corsAllowedOrigins` option as given (validated by the CORS policy). */
  readonly corsAllowedOrigins: ReadonlyArray<string | RegExp> | undefined;
  /** Body size limit. */
  readonly maxRequestBodyBytes: number;
  /** JSON depth limit. */
  readonly maxJsonDepth: number;
  /** Requests kept in the log. */
  readonly requestLogLimit: number;
  /** The authorization policy. */
  readonly authorization: AuthorizationPolicy;
  /** Whether a create provisions its missing namespace. */
  readonly autoCreateNamespaces: boolean;
}

function positiveInteger(option: string, value: unknown): number {
  return requireNumber(value, option, { min: 1, integer: true });
}

/** Validates the options (`TypeError`/`RangeError` naming the option) and applies defaults. */
export function resolveClusterOptions(
  options: SimulatedClusterOptions | undefined,
): ResolvedClusterOptions {
  const o = options ?? {};
  checkOptionsObject(o, "SimulatedCluster");
  const seed = requireNumber(o.seed ?? 1, "options.seed");
  if (o.token !== undefined && (typeof o.token !== "string" || o.token === "")) {
    // Never the value: a token given in the wrong shape is still a secret.
    const got = o.token === "" ? "an empty string" : describeKind(o.token);
    throw new TypeError(`options.token must be a non-empty string, got ${got}`);
  }
  const historyLimit = positiveInteger("options.historyLimit", o.historyLimit ?? 10_000);
  const bookmarkIntervalMs = positiveInteger(
    "options.bookmarkIntervalMs",
    o.bookmarkIntervalMs ?? 60_000,
  );
  const maxWatchBufferBytes = positiveInteger(
    "options.maxWatchBufferBytes",
    o.maxWatchBufferBytes ?? 1024 * 1024 * 1024,
  );
  checkBoolean(o.watchList, "options.watchList");
  checkBoolean(o.watchListCompression, "options.watchListCompression");
  checkBoolean(o.watchCache, "options.watchCache");
  checkBoolean(o.autoCreateNamespaces, "options.autoCreateNamespaces");
  return {
    clock: o.clock ?? systemClock,
    resources: servedResources(o.resources),
    seed,
    token: o.token,
    historyLimit,
    bookmarkIntervalMs,
    watchList: o.watchList ?? true,
    watchListCompression: o.watchListCompression ?? true,
    watchCache: o.watchCache ?? true,
    logRequests: o.logRequests,
    maxWatchBufferBytes,
    corsAllowedOrigins: o.corsAllowedOrigins,
    maxRequestBodyBytes: positiveInteger(
      "options.maxRequestBodyBytes",
      o.maxRequestBodyBytes ?? 3 * 1024 * 1024,
    ),
    maxJsonDepth: positiveInteger("options.maxJsonDepth", o.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH),
    requestLogLimit: requireNumber(o.requestLogLimit ?? 10_000, "options.requestLogLimit", {
      min: 0,
      integer: true,
    }),
    authorization: new AuthorizationPolicy(o.authorization),
    autoCreateNamespaces: o.autoCreateNamespaces ?? false,
  };
}

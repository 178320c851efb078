/**
 * One page of a LIST: the request, its body read as bytes, and the items decoded one by one
 * (see `list_body.ts`). `KubeClient.list` and the informer's pager both go through it.
 * Internal.
 * @module
 */
import {
  type DecodedList,
  decodeListBody,
  type ListBodyContext,
  type ListItemReader,
} from "./list_body.ts";
import { isMetadataOnly, METADATA_LIST_ACCEPT } from "./metadata_only.ts";
import { type KubeRequestOptions, type ListOptions, listQuery } from "./request_options.ts";
import { type ResourceDescriptor, resourcePath } from "./resource.ts";
import { continueTokenPeeker, readBytes, readFailure } from "./response_body.ts";
import type { KubeObjectLike } from "./types.ts";

/** What sends the request: a `KubeClient` (its `request`). */
export interface ListRequester {
  request(path: string, options?: KubeRequestOptions): Promise<Response>;
}

/** A page's body as it arrived, to be decoded when its turn comes. Internal. */
export interface ListPageBody {
  bytes: Uint8Array;
  context: ListBodyContext;
}

/**
 * Sends one LIST request and reads its 2xx body whole, as bytes. Errors as
 * `KubeClient.list`'s: a non-2xx answer is a `KubeApiError`, a body that fails mid-read a
 * `KubeNetworkError`, an abort rethrows the signal's reason.
 */
export async function fetchListPage<T extends KubeObjectLike>(
  client: ListRequester,
  resource: ResourceDescriptor<T>,
  options: ListOptions | undefined,
): Promise<ListPageBody> {
  const path = resourcePath(resource, { namespace: options?.namespace });
  const onContinue = options?.onContinue;
  const query = listQuery(options);
  const signal = options?.signal;
  const response = await client.request(path, {
    method: "GET",
    query,
    headers: isMetadataOnly(resource) ? { accept: METADATA_LIST_ACCEPT } : undefined,
    signal,
    trace: options?.trace,
  });
  const request = `GET ${path}`;
  let bytes: Uint8Array;
  try {
    bytes = await readBytes(response, signal, {
      peek: onContinue === undefined ? undefined : continueTokenPeeker(onContinue),
      onProgress: options?.onProgress,
    });
  } catch (error) {
    throw readFailure(error, request, signal);
  }
  return { bytes, context: { request, path, status: response.status, resource } };
}

/** The list in a page's body, its items through `reader` (see `decodeListBody`). */
export function decodeListPage<T = KubeObjectLike>(
  page: ListPageBody,
  reader?: ListItemReader<T>,
): DecodedList<T> {
  return decodeListBody(page.bytes, page.context, reader);
}

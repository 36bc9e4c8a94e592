// The HTTP client: openapi-fetch over the types that openapi-typescript generates from the
// service's contract (src/schema.ts, from openapi.yaml).

import createClient, { type Client, type ClientOptions } from "openapi-fetch";
import type { paths } from "./schema.js";

/** A typed client of every operation of the contract: `client.GET("/svc/lookup/{namespace}", ...)`. */
export type SvcClient = Client<paths>;

export interface SvcClientOptions {
  /** Where the service answers, e.g. `https://directory.example.com` (without `/svc`). */
  baseUrl: string;
  /**
   * An API key (`svc_...`), sent as `Authorization: Bearer <key>`. Lookups, queries and
   * searches work without one; publishing needs one.
   */
  apiKey?: string;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** A fetch implementation (defaults to the global fetch). */
  fetch?: ClientOptions["fetch"];
}

/** Creates a typed client of the service. */
export function createSvcClient(options: SvcClientOptions): SvcClient {
  const headers: Record<string, string> = { ...options.headers };
  if (options.apiKey !== undefined && options.apiKey !== "") {
    headers["Authorization"] = `Bearer ${options.apiKey}`;
  }
  const clientOptions: ClientOptions = { baseUrl: options.baseUrl.replace(/\/+$/, ""), headers };
  if (options.fetch !== undefined) {
    clientOptions.fetch = options.fetch;
  }
  return createClient<paths>(clientOptions);
}

// The body of an operation's 200 answer.
type JSONBody200<Op> = Op extends { responses: { 200: { content: { "application/json": infer B } } } } ? B : never;

/** The answer of GET /svc/lookup/{namespace}. */
export type NamespaceLookupResponse = JSONBody200<paths["/svc/lookup/{namespace}"]["get"]>;
/** The answer of GET /svc/lookup/{namespace}/{registry_name}. */
export type RegistryLookupResponse = JSONBody200<paths["/svc/lookup/{namespace}/{registry_name}"]["get"]>;
/** The answer of GET /svc/lookup/{namespace}/{registry_name}/{record_name}. */
export type RecordLookupResponse = JSONBody200<paths["/svc/lookup/{namespace}/{registry_name}/{record_name}"]["get"]>;

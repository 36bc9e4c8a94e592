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
  /**
   * Read your own writes through any instance (default true): the client keeps the newest
   * `Svc-Consistency-Token` its writes were answered with and sends it on its GET requests
   * (unless one sets the header itself), so a service reading from replicas serves them from a
   * database that has the writes. Set false for reads that may be up to the service's replica
   * lag behind.
   */
  readYourWrites?: boolean;
}

/** The header that carries a consistency token (docs/deployment.md). */
export const consistencyHeader = "Svc-Consistency-Token";

/** The position a consistency token names ("16/B374D848"), to order tokens; null if malformed. */
export function tokenPosition(token: string): bigint | null {
  const m = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/.exec(token);
  return m === null ? null : (BigInt("0x" + m[1]) << 32n) | BigInt("0x" + m[2]);
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
  const client = createClient<paths>(clientOptions);
  if (options.readYourWrites !== false) {
    let newest: { token: string; at: bigint } | null = null;
    client.use({
      onRequest({ request }) {
        if (request.method === "GET" && newest !== null && !request.headers.has(consistencyHeader)) {
          request.headers.set(consistencyHeader, newest.token);
        }
        return request;
      },
      onResponse({ request, response }) {
        const token = response.headers.get(consistencyHeader);
        const at = token === null ? null : tokenPosition(token);
        if (request.method !== "GET" && response.ok && token !== null && at !== null && (newest === null || at > newest.at)) {
          newest = { token, at };
        }
        return response;
      },
    });
  }
  return client;
}

// The body of an operation's 200 answer.
type JSONBody200<Op> = Op extends { responses: { 200: { content: { "application/json": infer B } } } } ? B : never;

/** The answer of GET /svc/lookup/{namespace}. */
export type NamespaceLookupResponse = JSONBody200<paths["/svc/lookup/{namespace}"]["get"]>;
/** The answer of GET /svc/lookup/{namespace}/{registry_name}. */
export type RegistryLookupResponse = JSONBody200<paths["/svc/lookup/{namespace}/{registry_name}"]["get"]>;
/** The answer of GET /svc/lookup/{namespace}/{registry_name}/{record_name}. */
export type RecordLookupResponse = JSONBody200<paths["/svc/lookup/{namespace}/{registry_name}/{record_name}"]["get"]>;

/** An answer outside 2xx from one of the text helpers: its status and body. */
export class SvcTextError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
    path: string,
  ) {
    super(`GET ${path}: ${status} ${body.slice(0, 200)}`);
    this.name = "SvcTextError";
  }
}

// getText reads a text/plain answer: openapi-fetch parses bodies as JSON unless told otherwise
// (parseAs: "text"), and a checkpoint is not JSON.
async function getText(
  client: SvcClient,
  path: "/svc/log/checkpoint" | "/svc/log/cosigned-checkpoint" | "/svc/log/key" | "/svc/log/policy",
  signal?: AbortSignal,
): Promise<string> {
  const { data, error, response } = await client.GET(path, { parseAs: "text", ...(signal ? { signal } : {}) });
  if (!response.ok || typeof data !== "string") {
    throw new SvcTextError(response.status, typeof error === "string" ? error : JSON.stringify(error ?? ""), path);
  }
  return data;
}

/**
 * The latest signed checkpoint of the transparency log (GET /svc/log/checkpoint, text/plain), as
 * text for verifyCheckpoint(). Throws SvcTextError for an answer outside 2xx.
 */
export function getCheckpoint(client: SvcClient, options: { signal?: AbortSignal } = {}): Promise<string> {
  return getText(client, "/svc/log/checkpoint", options.signal);
}

/**
 * The latest checkpoint with its witnesses' cosignatures (GET /svc/log/cosigned-checkpoint), as
 * text for verifyCosignedCheckpoint(). Throws SvcTextError for an answer outside 2xx (404 while
 * no checkpoint has been cosigned).
 */
export function getCosignedCheckpoint(client: SvcClient, options: { signal?: AbortSignal } = {}): Promise<string> {
  return getText(client, "/svc/log/cosigned-checkpoint", options.signal);
}

/**
 * The log's verifier key as the service serves it (GET /svc/log/key, text/plain), without the
 * final newline. A reader who audits the service takes the key from the operator, not from the
 * service; this is for comparing the two. Throws SvcTextError for an answer outside 2xx.
 */
export async function getLogKey(client: SvcClient, options: { signal?: AbortSignal } = {}): Promise<string> {
  return (await getText(client, "/svc/log/key", options.signal)).trim();
}

/**
 * The log's C2SP tlog-policy as the service serves it (GET /svc/log/policy), for
 * parseTlogPolicy(). A relying party takes its policy from the operator, not from the service it
 * audits; this is for comparing the two. Throws SvcTextError for an answer outside 2xx.
 */
export function getLogPolicy(client: SvcClient, options: { signal?: AbortSignal } = {}): Promise<string> {
  return getText(client, "/svc/log/policy", options.signal);
}

/**
 * A version's C2SP tlog-proof (GET /svc/log/proof/{version}), for verifyTlogProof(). Throws
 * SvcTextError for an answer outside 2xx (404 for an unknown version or a draft, or one not yet
 * in the checkpoint).
 */
export async function getLogProof(client: SvcClient, version: string, options: { signal?: AbortSignal } = {}): Promise<string> {
  const path = "/svc/log/proof/{version}";
  const { data, error, response } = await client.GET(path, {
    params: { path: { version } },
    parseAs: "text",
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if (!response.ok || typeof data !== "string") {
    throw new SvcTextError(response.status, typeof error === "string" ? error : JSON.stringify(error ?? ""), path);
  }
  return data;
}

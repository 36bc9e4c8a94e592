// The README's example of both checks: verifyLookup() offline, which needs no key, and the
// service's verify-record-lookup, which needs an API key (401 without one) and records the
// attempt in the verification log. Run against a live service by test/live.test.mjs.
import { createSvcClient, verifyLookup } from "../src/index.js";

export async function verifyBothWays(baseUrl: string, apiKey: string, namespace: string, registry: string, record: string): Promise<number> {
  const client = createSvcClient({ baseUrl, apiKey });
  const { data, error, response } = await client.GET("/svc/lookup/{namespace}/{registry_name}/{record_name}", {
    params: { path: { namespace, registry_name: registry, record_name: record } },
  });
  if (data === undefined) {
    throw new Error(`lookup failed (${response.status}): ${error?.message}`);
  }
  const offline = verifyLookup("record", data);
  if (!offline.ok) {
    throw new Error(`the lookup does not verify: ${offline.reason}`);
  }
  const checked = await client.POST("/svc/verify-record-lookup", { body: { record_lookup_response: data } });
  // 200: Verification successful; 400: Verification failed; 401: no or bad API key
  return checked.response.status;
}

// The README's example: look a record up and verify it offline. Type-checked with tsc --strict
// by the tests.
import { createSvcClient, verifyLookup } from "../src/index.js";

export async function lookUpAndVerify(baseUrl: string, namespace: string, registry: string, record: string): Promise<string> {
  const client = createSvcClient({ baseUrl });
  const { data, error, response } = await client.GET("/svc/lookup/{namespace}/{registry_name}/{record_name}", {
    params: { path: { namespace, registry_name: registry, record_name: record } },
  });
  if (error !== undefined || data === undefined) {
    throw new Error(`lookup failed (${response.status}): ${error?.message}`);
  }
  console.log(data.data.record_name, data.data.state, data.data.details);

  const result = verifyLookup("record", data);
  if (!result.ok) {
    throw new Error(`the lookup does not verify: ${result.reason}`);
  }
  return result.digest;
}

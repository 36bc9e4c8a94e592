// The README's log example: look a namespace up and check that its version is in the
// transparency log, against the log's verifier key. Type-checked with tsc --strict by the tests.
import { createSvcClient, verifyInclusion } from "../src/index.js";

export async function lookUpAndCheckInclusion(baseUrl: string, namespace: string, logKey: string): Promise<number> {
  const client = createSvcClient({ baseUrl });
  const lookup = await client.GET("/svc/lookup/{namespace}", { params: { path: { namespace } } });
  if (lookup.data === undefined) {
    throw new Error(`lookup failed (${lookup.response.status}): ${lookup.error?.message}`);
  }
  const proof = await client.GET("/svc/log/inclusion/{version}", { params: { path: { version: lookup.data.data.version } } });
  if (proof.data === undefined) {
    throw new Error(`no inclusion proof yet (${proof.response.status}): ${proof.error?.message}`);
  }
  const result = verifyInclusion(proof.data, logKey, { kind: "namespace", lookup: lookup.data });
  if (!result.ok) {
    throw new Error(`not proven in the log: ${result.reason}`);
  }
  return result.logIndex;
}

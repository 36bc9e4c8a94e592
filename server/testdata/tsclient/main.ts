// A small integrator program written against types generated from openapi.yaml
// (openapi-typescript) and the openapi-fetch client: publish, look up, verify. Compiled with
// tsc --strict and run against a live server by the Go test TestTypeScriptClient.
import createClient from "openapi-fetch";
import type { paths } from "./schema";

declare const process: { argv: string[]; exit(code: number): never };

const [baseUrl, key] = process.argv.slice(2);
const client = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${key}` } });

function fail(step: string, detail: unknown): never {
  console.error(`${step} failed: ${JSON.stringify(detail)}`);
  process.exit(1);
}

async function main(): Promise<void> {
  const ns = await client.POST("/svc/create-namespace", { body: { name: "TypeScript client", description: "typed" } });
  if (!ns.data) fail("create-namespace", ns.error);
  const namespace: string = ns.data.data.namespace_id;

  const reg = await client.POST("/svc/{namespace}/create-registry", {
    params: { path: { namespace } },
    body: { registry_name: "people", tag: "custom", schema: { type: "object", required: ["email"] } },
  });
  if (!reg.data) fail("create-registry", reg.error);

  // Bodies that omit every field the server defaults (tag, query_allowed, state) compile with the
  // types openapi-typescript generates under its default options.
  const minimal = await client.POST("/svc/{namespace}/create-registry", {
    params: { path: { namespace } },
    body: { registry_name: "minimal", schema: { type: "object" } },
  });
  if (!minimal.data || minimal.data.data.tag !== "custom") fail("create-registry with defaults", minimal.error);
  const bulk = await client.POST("/svc/{namespace}/{registry_name}/add-records", {
    params: { path: { namespace, registry_name: "minimal" } },
    body: { records: [{ record_name: "m1" }] },
  });
  if (!bulk.data) fail("add-records with defaults", bulk.error);

  const rec = await client.POST("/svc/{namespace}/{registry_name}/add-record", {
    params: { path: { namespace, registry_name: "people" } },
    body: { record_name: "ada", details: { email: "ada@example.com", tags: ["math", "ü"] } },
  });
  if (!rec.data) fail("add-record", rec.error);

  const look = await client.GET("/svc/lookup/{namespace}/{registry_name}/{record_name}", {
    params: { path: { namespace, registry_name: "people", record_name: "ada" } },
  });
  if (!look.data) fail("lookup", look.error);
  const record = look.data.data;
  if (record.proof.digest !== record.digest || record.state !== "live") fail("lookup fields", record);

  const verified = await client.POST("/svc/verify-record-lookup", {
    body: { record_lookup_response: { message: look.data.message, data: record } },
  });
  if (!verified.data) fail("verify", verified.error);

  const tampered = await client.POST("/svc/verify-record-lookup", {
    body: { record_lookup_response: { message: look.data.message, data: { ...record, description: "forged" } } },
  });
  if (tampered.response.status !== 400) fail("verify of a tampered lookup", tampered.response.status);

  console.log(`ok ${record.record_id} ${record.proof.digest} ${verified.data.message}`);
}

main().catch((e: unknown) => fail("run", String(e)));

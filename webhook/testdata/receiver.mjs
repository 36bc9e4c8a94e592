// A webhook receiver built on the standardwebhooks npm package, as an integrator would write
// one: it verifies each delivery's webhook-id, webhook-timestamp and webhook-signature against
// the subscription's secret and answers 204, or 400 when verification fails.
//
// usage: SECRET=whsec_... PORT=N node receiver.mjs
// It prints one JSON line when it listens ({"listening": port}) and one per request:
// {"verified": true, "id": ..., "payload": ...} or {"verified": false, "error": ...}.
import http from "node:http";
import { Webhook } from "standardwebhooks";

const wh = new Webhook(process.env.SECRET);
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const body = Buffer.concat(chunks).toString("utf8");
    try {
      const payload = wh.verify(body, req.headers);
      console.log(JSON.stringify({ verified: true, id: req.headers["webhook-id"], payload }));
      res.writeHead(204).end();
    } catch (e) {
      console.log(JSON.stringify({ verified: false, error: String(e && e.message ? e.message : e) }));
      res.writeHead(400).end();
    }
  });
});
server.listen(Number(process.env.PORT || 0), "127.0.0.1", () => {
  console.log(JSON.stringify({ listening: server.address().port }));
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));

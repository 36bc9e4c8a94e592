// The exchange of the contract runs with Stoplight Prism (corpus.mjs, unavailable.mjs): one
// request through the validating proxy, and Prism's verdict on the response it read from the
// `sl-violations` header, recorded per operation.
import http from "node:http";

// exchange returns send, which makes one request through the proxy at base and records it;
// results (every request with its status and response violations), seen (operation id -> the
// statuses it answered) and retries (how many requests were sent again after the proxy's
// connection to svc broke).
export function exchange(base) {
  const results = []; // {op, method, path, status, responseViolations, body}
  const seen = new Map();
  let proxyRetries = 0;
  // send makes one request through the proxy and records Prism's verdict on the response.
  async function send(opId, method, path, { key, body, contentType, headers = {}, raw = false } = {}) {
    const h = { ...headers };
    if (key) h.Authorization = key.includes(" ") ? key : `Bearer ${key}`;
    let payload;
    if (body !== undefined) {
      payload = Buffer.from(raw ? body : JSON.stringify(body), "utf8");
      h["Content-Type"] = contentType ?? "application/json";
      h["Content-Length"] = String(payload.length);
    }
    let res = await request(method, path, h, payload);
    // The proxy answers 500 FetchError itself when its connection to svc broke before it read the
    // answer: svc refuses an oversized body after reading up to the limit and closes the
    // connection, and a close with unread bytes resets it (a TCP race, not an answer of svc).
    // Such a request is sent again, a few times at most.
    for (let i = 0; i < 5 && res.status === 500 && /"type":"FetchError"/.test(res.text); i++) {
      proxyRetries++;
      res = await request(method, path, h, payload);
    }
    const text = res.text;
    let violations = [];
    const header = res.headers["sl-violations"];
    if (header) {
      try {
        violations = JSON.parse(header);
      } catch {
        violations = [{ location: ["response"], message: `unreadable sl-violations header: ${header}` }];
      }
    }
    const responseViolations = violations.filter((v) => Array.isArray(v.location) && v.location[0] === "response");
    let json;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    results.push({ op: opId, method, path, status: res.status, responseViolations, body: text.slice(0, 300) });
    if (opId) {
      if (!seen.has(opId)) seen.set(opId, new Set());
      seen.get(opId).add(res.status);
    }
    return { status: res.status, json, headers: res.headers, text };
  }

  // request is a plain HTTP/1.1 exchange (fetch refuses bodies on GET, which the corpus sends on
  // purpose). A connection that fails is an answer of status 0, which fails the run.
  function request(method, path, headers, payload) {
    return new Promise((resolve) => {
      const req = http.request(base + path, { method, headers, agent: false, timeout: 15000 }, (res) => {
        const chunks = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, text: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", (e) => resolve({ status: 0, headers: {}, text: String(e) }));
      });
      req.on("error", (e) => resolve({ status: 0, headers: {}, text: String(e) }));
      req.on("timeout", () => req.destroy(new Error("no answer within 15 s")));
      if (payload !== undefined) req.write(payload);
      req.end();
    });
  }

  return { send, results, seen, retries: () => proxyRetries };
}

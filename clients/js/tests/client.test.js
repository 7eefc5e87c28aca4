"use strict";
// The API client against a tiny local HTTP server that misbehaves on purpose (503s, 429 + Retry-After,
// problem bodies). The real service is exercised from the Python suite (tests/clients/test_js_sdk.py).
const test = require("node:test");
const assert = require("node:assert/strict");
const http = require("node:http");
const { ApiError, ApiUnavailable, ArenaClient } = require("../src/http");

async function server(t, handler) {
  const s = http.createServer(handler);
  await new Promise((r) => s.listen(0, "127.0.0.1", r));
  t.after(() => { s.closeAllConnections(); s.close(); });
  return `http://127.0.0.1:${s.address().port}`;
}

test("retries 5xx and 429 (after Retry-After), then answers", async (t) => {
  const seen = [];
  const url = await server(t, (req, res) => {
    seen.push([req.method, req.url, req.headers.authorization, Date.now()]);
    if (seen.length === 1) { res.writeHead(503); res.end("down"); return; }
    if (seen.length === 2) { res.writeHead(429, { "Retry-After": "1" }); res.end(); return; }
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(JSON.stringify({ ok: true }));
  });
  const api = new ArenaClient(url, { backoffMs: 5 });
  const answer = await api.seatState("t1", 2, "tok", 7, 5);
  assert.deepEqual(answer, { ok: true });
  assert.equal(seen.length, 3);
  assert.deepEqual(seen[2].slice(0, 3), ["GET", "/api/tables/t1/seats/2?after=7&wait=5", "Bearer tok"]);
  assert.ok(seen[2][3] - seen[1][3] >= 950, "waited for Retry-After");
});

test("an error answer throws ApiError with the problem body; no retry", async (t) => {
  let calls = 0;
  const url = await server(t, (req, res) => {
    calls += 1;
    res.writeHead(422, { "Content-Type": "application/problem+json" });
    res.end(JSON.stringify({ type: "illegal-move", title: "Illegal move", status: 422, detail: "follow suit",
      legal: ["3D"] }));
  });
  const api = new ArenaClient(url);
  await assert.rejects(api.move("t", 0, "tok", "QS", 3), (error) => {
    assert.ok(error instanceof ApiError);
    assert.equal(error.status, 422);
    assert.deepEqual(error.legal, ["3D"]);
    assert.match(error.message, /follow suit/);
    return true;
  });
  assert.equal(calls, 1);
});

test("an unreachable API is ApiUnavailable after the retries", async () => {
  const probe = http.createServer();
  await new Promise((r) => probe.listen(0, "127.0.0.1", r));
  const { port } = probe.address();
  await new Promise((r) => probe.close(r));
  const api = new ArenaClient(`http://127.0.0.1:${port}`, { retries: 2, backoffMs: 1 });
  await assert.rejects(api.games(), ApiUnavailable);
});

test("opening an account is never retried: a lost answer's key would be unreachable", async (t) => {
  let calls = 0;
  const url = await server(t, (req, res) => {
    calls += 1;
    res.writeHead(503, { "Content-Type": "application/problem+json" });
    res.end(JSON.stringify({ type: "/problems/store-unavailable", title: "Service unavailable", status: 503,
      detail: "retry shortly" }));
  });
  const api = new ArenaClient(url, { backoffMs: 1 });
  await assert.rejects(api.createAccount(), (error) => error instanceof ApiError && error.status === 503);
  await assert.rejects(api.rotateKey("k"), ApiError);
  assert.equal(calls, 2);
});

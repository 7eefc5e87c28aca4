"use strict";
// A bot's export read from a tiny local server: lines split across chunks, pages followed by their Link, an
// answer cut off in the middle of a line asked for again from the last whole line's cursor, problems thrown.
// The real service is exercised from the Python suite (tests/clients/test_js_sdk.py).
const test = require("node:test");
const assert = require("node:assert/strict");
const http = require("node:http");
const { ApiError, ArenaClient } = require("../src/http");
const { lineCursor } = require("../src/export");

const LINES = [0, 1, 2, 3, 4].map((n) => JSON.stringify({ cursor: `c${n}`, match_id: `m${n}`, records: [] }));

async function server(t, handler) {
  const s = http.createServer(handler);
  await new Promise((r) => s.listen(0, "127.0.0.1", r));
  t.after(() => { s.closeAllConnections(); s.close(); });
  return `http://127.0.0.1:${s.address().port}`;
}

async function all(iterator) {
  const found = [];
  for await (const item of iterator) found.push(item);
  return found;
}

test("a line's cursor is read from its head", () => {
  assert.equal(lineCursor(LINES[3]), "c3");
  assert.equal(lineCursor(JSON.stringify({ match_id: "m", cursor: "late" })), "late");
});

test("pages are followed by their Link, lines put together across chunks", async (t) => {
  const seen = [];
  const url = await server(t, (req, res) => {
    seen.push(req.url);
    const after = new URL(req.url, "http://x").searchParams.get("cursor");
    const from = after === null ? 0 : Number(after.slice(1)) + 1;
    const page = LINES.slice(from, from + 2);
    const headers = { "Content-Type": "application/x-ndjson" };
    if (from + 2 < LINES.length) headers.Link = `</api/bots/b/export?cursor=c${from + 1}&limit=2>; rel="next"`;
    res.writeHead(200, headers);
    const text = page.map((line) => `${line}\n`).join("");
    for (let i = 0; i < text.length; i += 7) res.write(text.slice(i, i + 7)); // chunks mid-line
    res.end();
  });
  const api = new ArenaClient(url);
  assert.deepEqual((await all(api.exportMatches("b", { limit: 2 }))).map((m) => m.match_id),
    ["m0", "m1", "m2", "m3", "m4"]);
  assert.deepEqual(seen, ["/api/bots/b/export?limit=2", "/api/bots/b/export?cursor=c1&limit=2",
    "/api/bots/b/export?cursor=c3&limit=2"]);
  assert.deepEqual(await all(api.exportLines("b", { cursor: "c2", limit: 2 })), LINES.slice(3));
});

test("an answer cut off mid-line goes on from the last whole line", async (t) => {
  const seen = [];
  const url = await server(t, (req, res) => {
    seen.push(req.url);
    res.writeHead(200, { "Content-Type": "application/x-ndjson" });
    const after = new URL(req.url, "http://x").searchParams.get("cursor");
    const rest = LINES.slice(after === null ? 0 : Number(after.slice(1)) + 1);
    if (seen.length === 1) { // the connection drops in the middle of the second line
      res.write(`${rest[0]}\n${rest[1].slice(0, 12)}`, () => setTimeout(() => res.destroy(), 50));
      return;
    }
    res.end(rest.map((line) => `${line}\n`).join(""));
  });
  const api = new ArenaClient(url, { backoffMs: 1 });
  assert.deepEqual((await all(api.exportMatches("b"))).map((m) => m.match_id), ["m0", "m1", "m2", "m3", "m4"]);
  assert.deepEqual(seen, ["/api/bots/b/export?limit=100", "/api/bots/b/export?cursor=c0&limit=100"]);
});

test("a problem answer throws ApiError at once", async (t) => {
  const url = await server(t, (req, res) => {
    res.writeHead(422, { "Content-Type": "application/problem+json" });
    res.end(JSON.stringify({ type: "/problems/validation-failed", title: "Validation failed", status: 422,
      detail: "see errors", errors: { cursor: ["not a cursor of this export"] } }));
  });
  const api = new ArenaClient(url);
  await assert.rejects(all(api.exportMatches("b", { cursor: "nope" })), (error) => {
    assert.ok(error instanceof ApiError);
    assert.equal(error.status, 422);
    assert.deepEqual(error.problem.errors, { cursor: ["not a cursor of this export"] });
    return true;
  });
});

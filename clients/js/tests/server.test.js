"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const http = require("node:http");
const { createBotServer, serve } = require("../src/server");

const VIEW = { game: "spot-hearts", seat: 0, trick: { leader: null, cards: [] },
  decision: { kind: "play", count: 1, legal: ["2C"] }, legal: ["2C"] };

/** One request on a kept-alive agent: {status, body, socket}. */
function call(url, method, path, body, agent) {
  return new Promise((resolve, reject) => {
    const req = http.request(new URL(path, url), { method, agent, headers: { "Content-Type": "application/json" } },
      (res) => {
        let raw = "";
        res.on("data", (d) => { raw += d; });
        res.on("end", () => resolve({ status: res.statusCode, body: raw ? JSON.parse(raw) : null, socket: req.socket }));
      });
    req.on("error", reject);
    req.end(body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body));
  });
}

test("protocol 1: info, a move, notifications, errors, one kept-alive connection", async (t) => {
  const seen = [];
  const bot = {
    name: "t", version: "2.1", games: ["spot-hearts"],
    choose(view) {
      if (view.decision.legal[0] === "XX") throw new Error("bot bug");
      return view.decision.legal[0];
    },
    onStart(info) { seen.push(["start", info.table]); },
    onEnd(info) { seen.push(["end", info.table]); },
  };
  const server = await serve(bot, { port: 0 });
  t.after(() => { server.closeAllConnections(); server.close(); });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  t.after(() => agent.destroy());
  const info = await call(server.url, "GET", "/", undefined, agent);
  assert.deepEqual(info.body, { name: "t", author: "anonymous", version: "2.1", games: ["spot-hearts"] });
  const move = await call(server.url, "POST", "/move", { protocol: 1, view: VIEW }, agent);
  assert.deepEqual([move.status, move.body], [200, { move: "2C" }]);
  assert.equal(move.socket, info.socket, "the connection is kept alive");
  assert.equal((await call(server.url, "POST", "/start", { table: "x.0" }, agent)).status, 200);
  assert.equal((await call(server.url, "POST", "/end", { table: "x.0" }, agent)).status, 200);
  assert.deepEqual(seen, [["start", "x.0"], ["end", "x.0"]]);
  const broken = await call(server.url, "POST", "/move",
    { view: { ...VIEW, decision: { kind: "play", count: 1, legal: ["XX"] } } }, agent);
  assert.equal(broken.status, 500);
  assert.match(broken.body.error, /bot bug/);
  assert.equal((await call(server.url, "POST", "/move", "{not json", agent)).status, 400);
  assert.equal((await call(server.url, "POST", "/nope", {}, agent)).status, 404);
  assert.equal((await call(server.url, "GET", "/nope", undefined, agent)).status, 404);
  assert.deepEqual((await call(server.url, "POST", "/move/", { view: VIEW }, agent)).body, { move: "2C" });
  assert.equal(server.calls, 2);
});

test("decisions run one at a time unless the bot says it is concurrent", async (t) => {
  for (const concurrent of [false, true]) {
    let inside = 0;
    let most = 0;
    const bot = {
      concurrent,
      async choose(view) {
        inside += 1;
        most = Math.max(most, inside);
        await new Promise((r) => setTimeout(r, 30));
        inside -= 1;
        return view.decision.legal[0];
      },
    };
    const server = createBotServer(bot);
    await new Promise((r) => server.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${server.address().port}`;
    const answers = await Promise.all(Array.from({ length: 4 }, () => call(url, "POST", "/move", { view: VIEW })));
    assert.ok(answers.every((a) => a.body.move === "2C"));
    assert.equal(most, concurrent ? 4 : 1);
    server.closeAllConnections();
    server.close();
  }
});

"use strict";
// The command line of a starter (serve, usage errors, SIGTERM) and `trickarena verify-deals`.
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const deals = require("../src/deals");
const { SDK, runNode, scratch, startNode } = require("./helpers");

const STARTERS = ["spot_hearts_bot.js", "card_commons_bot.js", "sloppy_seconds_bot.js", "sore_spot_bot.js"];

test("each starter serves GET / and stops cleanly on SIGTERM", async () => {
  const dir = scratch();
  for (const starter of STARTERS) {
    const bot = startNode([starter, "serve", "--port", "0"], dir, /listening on (http:\/\/\S+)/);
    const [, url] = await bot.matched;
    const info = await (await fetch(url)).json();
    assert.equal(info.games.length, 1);
    assert.match(info.name, /-starter-js$/);
    bot.child.kill("SIGTERM");
    assert.deepEqual(await bot.exited, { code: 0, signal: null });
  }
});

test("a wrong command line says how to use it", async () => {
  const dir = scratch();
  const bad = await runNode(["spot_hearts_bot.js", "fly"], dir);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /usage: node spot_hearts_bot.js serve/);
  const busy = require("node:net").createServer();
  await new Promise((resolve) => busy.listen(0, "127.0.0.1", resolve));
  const taken = await runNode(["spot_hearts_bot.js", "serve", "--port", String(busy.address().port)], dir);
  busy.close();
  assert.equal(taken.code, 1);
  assert.match(taken.stderr, /cannot listen on 127.0.0.1:\d+: .*EADDRINUSE/);
  const noToken = await runNode(["spot_hearts_bot.js", "ladder", "--bot-id", "b1"], dir);
  assert.equal(noToken.code, 2);
  assert.match(noToken.stderr, /--bot-id and --token/);
});

test("verify-deals: OK for an honest record, FAILED (exit 1) for a tampered one", async () => {
  const dir = scratch();
  const seed = 4503599627370497;
  const nonce = "ab".repeat(16);
  const first = deals.firstDealer(seed, 4);
  const record = { game: "spot-hearts", players: 4, options: {}, moves: [], seed, dealing: 2, seed_nonce: nonce,
    seed_commitment: deals.seedCommitment(seed, nonce),
    deals: [{ dealer: first, hands: deals.deal(seed, 0, deals.CANONICAL, 4, first) }] };
  fs.writeFileSync(path.join(dir, "good.json"), JSON.stringify(record));
  const bin = path.join(SDK, "bin", "trickarena.js");
  const good = await runNode([bin, "verify-deals", "good.json"], dir);
  assert.equal(good.code, 0, good.stdout + good.stderr);
  assert.match(good.stdout, /good.json: OK — 1 round\(s\) dealt by seed 4503599627370497 .*opens the commitment/);
  record.deals[0].hands[1][0] = record.deals[0].hands[3][0];
  fs.writeFileSync(path.join(dir, "bad.json"), JSON.stringify(record));
  const bad = await runNode([bin, "verify-deals", "bad.json"], dir);
  assert.equal(bad.code, 1);
  assert.match(bad.stdout, /bad.json: FAILED\n {2}- round 0: the hands differ/);
  const stdin = await runNode([bin, "verify-deals", "-"], dir, JSON.stringify({ ...record, seed: seed + 1 }));
  assert.match(stdin.stdout, /the seed and nonce do not open the commitment/);
  const missing = await runNode([bin, "verify-deals", "nope.json"], dir);
  assert.equal(missing.code, 2);
});

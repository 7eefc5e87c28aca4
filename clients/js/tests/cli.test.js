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

test("the account key: $TRICK_ARENA_KEY first, then the key file (mode 0600); the file's path by precedence", () => {
  const cli = require("../src/cli");
  const dir = fs.mkdtempSync(path.join(require("node:os").tmpdir(), "trickarena-key-"));
  assert.equal(cli.keyFilePath("/given", { TRICK_ARENA_KEY_FILE: "/env" }), "/given");
  assert.equal(cli.keyFilePath(undefined, { TRICK_ARENA_KEY_FILE: "/env", XDG_CONFIG_HOME: "/cfg" }), "/env");
  assert.equal(cli.keyFilePath(undefined, { XDG_CONFIG_HOME: "/cfg" }), "/cfg/trick-arena/key");
  const file = path.join(dir, "deep", "key");
  assert.deepEqual(cli.readKey(file, {}), { key: null, source: "" });
  cli.writeKey(file, "k-file");
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  assert.equal(fs.statSync(path.dirname(file)).mode & 0o777, 0o700);
  assert.deepEqual(cli.readKey(file, {}), { key: "k-file", source: file });
  assert.deepEqual(cli.readKey(file, { TRICK_ARENA_KEY: " k-env " }), { key: "k-env", source: "$TRICK_ARENA_KEY" });
});

test("a wrong command line is one line and exit 2, before any request", async () => {
  const { main } = require("../src/cli");
  const lines = [];
  const say = (line) => lines.push(line);
  const cases = [
    [["register", "x", "--game", "g", "--nope"], /Unknown option '--nope'/],
    [["register", "x"], /register needs --game/],
    [["update", "b1"], /nothing to change/],
    [["update", "b1", "--enable", "--disable"], /not both/],
    [["account", "adopt", "b1"], /needs --token/],
    [["delete"], /delete takes 1 argument/],
    [["record", "b1", "--limit", "x"], /whole number/],
    [["account", "frob"], /no command 'account frob'/],
  ];
  for (const [argv, says] of cases) {
    lines.length = 0;
    const code = await main([...argv, "--api", "http://127.0.0.1:9"], { env: {}, out: say, err: say });
    assert.equal(code, 2, `${argv.join(" ")}: ${lines.join("\n")}`);
    assert.match(lines[0], says);
  }
});

test("an option's value may start with '-', as an owner token may", async () => {
  const { main } = require("../src/cli");
  const lines = [];
  const say = (line) => lines.push(line);
  // Parsed (nothing listens on port 9): the request fails, not the command line.
  const code = await main(["update", "b1", "--enable", "--token", "-aL5Z5Ck", "--api", "http://127.0.0.1:9"],
    { env: {}, out: say, err: say });
  assert.notEqual(code, 2, lines.join("\n"));
  assert.doesNotMatch(lines.join("\n"), /usage|ambiguous|Unknown option/);
  // A bot's own command line (`node my_bot.js ladder --token ...`) joins its values the same way.
  const { withValuesJoined } = require("../src/args");
  const options = { token: { type: "string" }, "bot-id": { type: "string" }, enable: { type: "boolean" } };
  assert.deepEqual(withValuesJoined(["ladder", "--bot-id", "b1", "--token", "-x", "--enable", "--token=-y"], options),
    ["ladder", "--bot-id=b1", "--token=-x", "--enable", "--token=-y"]);
});

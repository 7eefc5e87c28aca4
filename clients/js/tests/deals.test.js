"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const deals = require("../src/deals");
const { docVectors } = require("./helpers");

const vectors = docVectors();

test("the deal vectors of docs/deals.md", () => {
  assert.ok(vectors.deals.length >= 5);
  for (const v of vectors.deals) {
    const deck = deals.CANONICAL.filter((c) => !v.without.includes(c));
    const hands = deals.deal(v.seed, v.round, deck, v.players, v.dealer);
    assert.deepEqual(hands.map((h) => h.join(" ")), v.hands, JSON.stringify(v.seed));
  }
});

test("first dealers, the raw stream, draws with rejection and the commitment", () => {
  for (const v of vectors.first_dealer) {
    assert.deepEqual(v.players.map((n) => deals.firstDealer(v.seed, n)), v.first_dealer);
  }
  const { stream, draws, commitment } = vectors;
  assert.equal(new deals.Draws(stream.seed, stream.purpose).nextBytes(32).toString("hex"), stream.first_32_bytes);
  const d = new deals.Draws(draws.seed, draws.purpose);
  assert.deepEqual(draws.values.map(() => d.below(draws.below)), draws.values);
  const words = new deals.Draws(draws.seed, draws.purpose);
  const raw = Array.from({ length: 10 }, () => words.nextBytes(4).readUInt32BE(0));
  const limit = 2 ** 32 - (2 ** 32 % draws.below);
  assert.deepEqual(raw.filter((w) => w >= limit), draws.rejected_words);
  assert.equal(deals.seedCommitment(commitment.seed, commitment.seed_nonce), commitment.seed_commitment);
});

test("seeds must be exact: an unsafe JavaScript number is refused", () => {
  assert.throws(() => deals.deal(2 ** 53 + 2, 0, deals.CANONICAL, 4, 0), /below 2\^53/);
  assert.equal(deals.seedText(9007199254740991), "9007199254740991");
});

function recordOf(seed, game = "spot-hearts", rounds = 2) {
  const first = game === "spot-hearts" ? deals.firstDealer(seed, 4) : 0;
  const nonce = "0f".repeat(16);
  return {
    game, players: 4, options: {}, moves: [], seed, dealing: 2, seed_nonce: nonce,
    seed_commitment: deals.seedCommitment(seed, nonce),
    deals: Array.from({ length: rounds }, (_, r) => ({
      dealer: (first + r) % 4, hands: deals.deal(seed, r, deals.CANONICAL, 4, (first + r) % 4),
    })),
  };
}

test("verifyRecord accepts an honest record and names what is wrong with a tampered one", () => {
  const record = recordOf(123456789);
  assert.deepEqual(deals.verifyRecord(record), { ok: true, rounds: 2, commitment: "verified", problems: [] });
  const swapped = structuredClone(record);
  [swapped.deals[1].hands[0][0], swapped.deals[1].hands[2][0]] = [swapped.deals[1].hands[2][0], swapped.deals[1].hands[0][0]];
  assert.deepEqual(deals.verifyRecord(swapped).problems, ["round 1: the hands differ from the seed's deal"]);
  const otherSeed = { ...record, seed: 123456790 };
  assert.ok(deals.verifyRecord(otherSeed).problems.includes("the seed and nonce do not open the commitment"));
  const dealer = structuredClone(record);
  dealer.deals[0].dealer = (dealer.deals[0].dealer + 1) % 4;
  assert.match(deals.verifyRecord(dealer).problems[0], /^round 0: dealer is/);
  const unsaid = { ...record };
  delete unsaid.dealing;
  assert.match(deals.verifyRecord(unsaid).problems[0], /does not say its dealing version/);
  assert.match(deals.verifyRecord({ ...record, dealing: 1 }).problems[0], /unknown dealing version 1/);
  const noCommitment = { ...record, seed_commitment: undefined, seed_nonce: undefined };
  assert.equal(deals.verifyRecord(noCommitment).commitment, "absent");
  assert.equal(deals.verifyRecord(noCommitment).ok, true);
  assert.equal(deals.verifyRecord(recordOf(77, "card-commons", 3)).ok, true);
});

"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const cards = require("../src/cards");

test("ranks, suits, lowest and highest", () => {
  assert.equal(cards.rank("2C"), 2);
  assert.equal(cards.rank("AS"), 14);
  assert.equal(cards.suit("TH"), "H");
  assert.equal(cards.lowest(["KD", "3S", "9C"]), "3S");
  assert.equal(cards.highest(["KD", "3S", "AC"]), "AC");
  assert.deepEqual(cards.ofSuit(["KD", "3S", "9D"], "D"), ["KD", "9D"]);
  assert.deepEqual(cards.byRank(["KD", "3S", "9D"]), ["3S", "9D", "KD"]);
  assert.deepEqual(cards.byRank(["KD", "3S", "9D"], true), ["KD", "9D", "3S"]);
});

test("the trick on the table", () => {
  const view = { trick: { leader: 1, cards: [{ seat: 1, card: "5D" }, { seat: 2, card: "QD" }, { seat: 3, card: "2S" }] },
    decision: { kind: "play", count: 1, legal: ["3D", "AD"] } };
  assert.deepEqual(cards.trickCards(view), ["5D", "QD", "2S"]);
  assert.equal(cards.ledSuit(view), "D");
  assert.equal(cards.winningCard(view), "QD");
  assert.equal(cards.winningCard(view, "S"), "2S");
  assert.equal(cards.ledSuit({ trick: { leader: null, cards: [] } }), null);
  assert.equal(cards.firstLegal(view), "3D");
  assert.deepEqual(cards.firstLegal({ decision: { kind: "pass", count: 3, legal: ["2C", "3C", "4C", "5C"] } }),
    ["2C", "3C", "4C"]);
});

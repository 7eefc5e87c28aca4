"use strict";
/**
 * Card helpers for bots. Card codes are rank + suit: ranks 2 3 4 5 6 7 8 9 T J Q K A, suits C D H S.
 * @module trickarena/cards
 */
const RANKS = "23456789TJQKA";
const SUITS = "CDHS";

/** 2 .. 14 (Ace high). @param {string} card */
const rank = (card) => RANKS.indexOf(card[0]) + 2;
/** "C" | "D" | "H" | "S". @param {string} card */
const suit = (card) => card[card.length - 1];
/** @param {string[]} cards */
const lowest = (cards) => cards.reduce((a, b) => (rank(b) < rank(a) ? b : a));
/** @param {string[]} cards */
const highest = (cards) => cards.reduce((a, b) => (rank(b) > rank(a) ? b : a));
/** @param {string[]} cards @param {string} wanted */
const ofSuit = (cards, wanted) => cards.filter((c) => suit(c) === wanted);
/** A sorted copy, lowest rank first (or highest first with `descending`). */
const byRank = (cards, descending = false) =>
  [...cards].sort((a, b) => (descending ? rank(b) - rank(a) : rank(a) - rank(b)));

/** Cards already played to the current trick, in play order (empty when we lead). */
function trickCards(view) {
  const cards = (view.trick && view.trick.cards) || [];
  return cards.map((c) => (typeof c === "string" ? c : c.card));
}

/** The suit led to the current trick, or null when we lead. */
function ledSuit(view) {
  const cards = trickCards(view);
  return cards.length ? suit(cards[0]) : null;
}

/** The card winning the trick so far: the highest trump if any was played, else the highest of the led suit. */
function winningCard(view, trump = null) {
  const cards = trickCards(view);
  if (!cards.length) return null;
  const trumps = trump ? ofSuit(cards, trump) : [];
  return trumps.length ? highest(trumps) : highest(ofSuit(cards, suit(cards[0])));
}

/** The fallback the arena plays for a bot that fails: the first legal card, or the first `count` for a pass. */
function firstLegal(view) {
  const { kind, count, legal } = view.decision;
  return kind === "pass" ? legal.slice(0, count) : legal[0];
}

module.exports = {
  RANKS, SUITS, rank, suit, lowest, highest, ofSuit, byRank, trickCards, ledSuit, winningCard, firstLegal,
};

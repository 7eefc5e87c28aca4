"use strict";
/**
 * Dealing version 2, written from docs/deals.md alone: HMAC-SHA-256 byte streams, unbiased draws by
 * rejection, Fisher–Yates, one card at a time from the dealer's left. And the checks `verify-deals` makes.
 * @module trickarena/deals
 */
const crypto = require("node:crypto");

const SUITS = "CDHS";
const RANKS = "23456789TJQKA";
/** Every card code in canonical order: 2C 3C … AC 2D … AS. */
const CANONICAL = [...SUITS].flatMap((s) => [...RANKS].map((r) => r + s));
const ORDER = new Map(CANONICAL.map((code, index) => [code, index]));
const TWO_32 = 2 ** 32;
/** Games whose first dealer is drawn from the seed; the others start with seat 0. */
const DRAWS_FIRST_DEALER = new Set(["spot-hearts"]);

/** Unbiased integers from the byte stream HMAC-SHA-256(seed text, "deal/v2/<purpose>/<block>"), block 0, 1, … */
class Draws {
  /** @param {number|string} seed @param {string} purpose "round/<r>" or "dealer" */
  constructor(seed, purpose) {
    this.key = Buffer.from(seedText(seed), "utf8");
    this.prefix = `deal/v2/${purpose}/`;
    this.block = 0;
    this.buffer = Buffer.alloc(0);
  }

  /** The next `count` bytes of the stream. */
  nextBytes(count) {
    while (this.buffer.length < count) {
      const digest = crypto.createHmac("sha256", this.key).update(`${this.prefix}${this.block}`, "ascii").digest();
      this.buffer = Buffer.concat([this.buffer, digest]);
      this.block += 1;
    }
    const out = this.buffer.subarray(0, count);
    this.buffer = this.buffer.subarray(count);
    return out;
  }

  /** A uniform integer in [0, m), 1 <= m <= 2^32: 4 bytes big-endian, rejected at or above the last multiple. */
  below(m) {
    const limit = TWO_32 - (TWO_32 % m);
    for (;;) {
      const x = this.nextBytes(4).readUInt32BE(0);
      if (x < limit) return x % m;
    }
  }
}

/** The seed as the HMAC key text: integers in plain decimal (seeds are below 2^53, exact as JS numbers). */
function seedText(seed) {
  if (typeof seed === "number") {
    if (!Number.isSafeInteger(seed) || seed < 0) throw new Error(`seed ${seed} is not an integer below 2^53`);
    return String(seed);
  }
  if (typeof seed === "bigint") return seed.toString(10);
  if (typeof seed === "string") return seed;
  throw new Error(`a seed is an integer or a string, not ${typeof seed}`);
}

/** Sort card codes in canonical order (a copy). */
function sortCards(cards) {
  return [...cards].sort((a, b) => ORDER.get(a) - ORDER.get(b));
}

/**
 * Each seat's hand (sorted) for round `round`.
 * @param {number|string} seed @param {number} round @param {string[]} deck card codes
 * @param {number} players @param {number} dealer @returns {string[][]}
 */
function deal(seed, round, deck, players, dealer) {
  const cards = sortCards(deck);
  const draws = new Draws(seed, `round/${round}`);
  for (let i = cards.length - 1; i > 0; i -= 1) {
    const j = draws.below(i + 1);
    [cards[i], cards[j]] = [cards[j], cards[i]];
  }
  const hands = Array.from({ length: players }, () => []);
  cards.forEach((card, k) => hands[(dealer + 1 + k) % players].push(card));
  return hands.map(sortCards);
}

/** The first dealer of a game that draws it (Spot Hearts). */
function firstDealer(seed, players) {
  return new Draws(seed, "dealer").below(players);
}

/** hex SHA-256 of "<nonce>:<seed>": the commitment a table publishes when it opens. */
function seedCommitment(seed, nonce) {
  return crypto.createHash("sha256").update(`${nonce}:${seedText(seed)}`, "utf8").digest("hex");
}

function normalise(card) {
  const code = String(card).trim().toUpperCase().replace(/^10/, "T");
  if (!ORDER.has(code)) throw new Error(`${JSON.stringify(card)} is not a card code`);
  return code;
}

/**
 * Check a replay record from its own contents: the seed against the commitment (when the record carries
 * one) and every deal against the seed. Dealing version 2 only: a record of any other version, or that
 * does not say its version (`dealing`), is refused.
 * @param {object} record a replay record (GET /api/tables/{id}/replay or /api/matches/{id}/games/{n}/replay)
 * @returns {{ok: boolean, rounds: number, commitment: "verified"|"absent"|"mismatch", problems: string[]}}
 */
function verifyRecord(record) {
  const problems = [];
  const out = (commitment, rounds = 0) => ({ ok: problems.length === 0, rounds, commitment, problems });
  if (record === null || typeof record !== "object") {
    problems.push("a replay record is a JSON object");
    return out("absent");
  }
  const { seed, players } = record;
  if (seed === undefined || seed === null) problems.push("the record has no seed (the game is not over?)");
  if (record.dealing !== 2) {
    problems.push(record.dealing === undefined
      ? "the record does not say its dealing version"
      : `unknown dealing version ${JSON.stringify(record.dealing)}`);
  }
  let commitment = "absent";
  if (record.seed_commitment !== undefined && record.seed_commitment !== null) {
    const opened = record.seed_nonce && seed !== undefined && seed !== null
      && seedCommitment(seed, record.seed_nonce) === record.seed_commitment;
    commitment = opened ? "verified" : "mismatch";
    if (!opened) problems.push("the seed and nonce do not open the commitment");
  }
  const deals = Array.isArray(record.deals) ? record.deals : [];
  if (!deals.length || !Number.isInteger(players)) problems.push("the record has no deals");
  if (problems.length) return out(commitment);
  let parsed;
  try {
    parsed = deals.map((d) => d.hands.map((hand) => sortCards(hand.map(normalise))));
  } catch (error) {
    problems.push(`a deal is malformed: ${error.message}`);
    return out(commitment);
  }
  const deck = sortCards(parsed[0].flat());
  const first = DRAWS_FIRST_DEALER.has(record.game) ? firstDealer(seed, players) : 0;
  parsed.forEach((hands, round) => {
    const dealer = (first + round) % players;
    if (deals[round].dealer !== dealer) {
      problems.push(`round ${round}: dealer is ${deals[round].dealer}, the seed says ${dealer}`);
    }
    const expected = deal(seed, round, deck, players, dealer);
    if (JSON.stringify(hands) !== JSON.stringify(expected)) {
      problems.push(`round ${round}: the hands differ from the seed's deal`);
    }
  });
  return out(commitment, parsed.length);
}

module.exports = {
  CANONICAL, DRAWS_FIRST_DEALER, Draws, deal, firstDealer, seedCommitment, seedText, sortCards, verifyRecord,
};

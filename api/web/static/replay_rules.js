/* The rules engine's replay, in the browser: a record's moves applied by every rule of the four games, and the
 * replay viewer's frames built from them exactly as engine/frames.py builds them (tests/web/test_replay_rules.py
 * holds the two to the same frames). Later rounds are dealt from the seed by dealing version 2 (docs/deals.md:
 * SHA-256 and HMAC written out here, so it runs anywhere, synchronously). It also reads the files a user has:
 * a record, a saved match game, or lines of a bot's match export. Nothing here touches the network. */
(function (root) {
  "use strict";

  var SUITS = "CDHS", RANKS = "23456789TJQKA", HEARTS = 2, SPADES = 3;
  var CODES = [];
  for (var s = 0; s < 4; s++) for (var r = 0; r < 13; r++) CODES.push(RANKS[r] + SUITS[s]);
  var INT_OF_CODE = {};
  CODES.forEach(function (code, i) { INT_OF_CODE[code] = i; });
  var TWO_OF_CLUBS = 0, THREE_OF_CLUBS = 1, QUEEN_OF_SPADES = SPADES * 13 + 10;
  var LEFT = 1, RIGHT = -1, ACROSS = 2, HOLD = 0;
  var DIRECTION_NAMES = {"1": "left", "-1": "right", "2": "across", "0": "hold"};
  var MAX_TARGET = 100000;

  function suitOf(c) { return Math.floor(c / 13); }
  function rankOf(c) { return c % 13 + 2; }
  function codes(cards) { return cards.map(function (c) { return CODES[c]; }); }
  function byNumber(a, b) { return a - b; }
  function sorted(cards) { return cards.slice().sort(byNumber); }
  function range(n) { var out = []; for (var i = 0; i < n; i++) out.push(i); return out; }

  /* An engine error: the message the page shows. kind names the engine's error class. */
  function EngineError(kind, message, legal) {
    this.name = kind;
    this.message = legal === undefined ? message : message + " (legal: " + (legal.join(" ") || "none") + ")";
  }
  EngineError.prototype = Object.create(Error.prototype);
  EngineError.prototype.constructor = EngineError;
  function optionsError(message) { return new EngineError("OptionsError", message); }

  /* A JSON value as Python prints it (repr), so that messages read as the engine's. */
  function repr(value) {
    if (value === null || value === undefined) return "None";
    if (typeof value === "string") return "'" + value + "'";
    if (value === true) return "True";
    if (value === false) return "False";
    if (Array.isArray(value)) return "[" + value.map(repr).join(", ") + "]";
    if (typeof value === "object") {
      return "{" + Object.keys(value).map(function (k) { return repr(k) + ": " + repr(value[k]); }).join(", ") + "}";
    }
    return String(value);
  }
  function isInt(value) { return typeof value === "number" && Math.floor(value) === value && isFinite(value); }
  /* Python's truth of a JSON value: what `x or default` replaces. */
  function falsy(value) {
    return value === null || value === undefined || value === false || value === 0 || value === "" ||
      (Array.isArray(value) && !value.length) || (isObject(value) && !Object.keys(value).length);
  }
  function isObject(value) { return value !== null && typeof value === "object" && !Array.isArray(value); }

  /* R-CARD: "QS", "qs", " 10h " -> card int; anything else is a CardError (here an OptionsError-free throw). */
  function parseCard(text) {
    if (typeof text !== "string") {
      throw new EngineError("CardError", "a card code must be a string like 'QS', not " + pyType(text));
    }
    var code = text.trim().toUpperCase();
    if (code.slice(0, 2) === "10") code = "T" + code.slice(2);
    if (code.length !== 2 || RANKS.indexOf(code[0]) < 0 || SUITS.indexOf(code[1]) < 0) {
      throw new EngineError("CardError", repr(text) + " is not a card code (rank 2-9,T/10,J,Q,K,A + suit C,D,H,S, e.g. 'QS')");
    }
    return SUITS.indexOf(code[1]) * 13 + RANKS.indexOf(code[0]);
  }
  function pyType(value) {
    if (value === null || value === undefined) return "NoneType";
    if (typeof value === "boolean") return "bool";
    if (typeof value === "number") return isInt(value) ? "int" : "float";
    return Array.isArray(value) ? "list" : "dict";
  }
  function cardOf(code) {
    if (typeof code === "string" && INT_OF_CODE.hasOwnProperty(code)) return INT_OF_CODE[code];
    return parseCard(code);
  }

  // ----- dealing version 2 (docs/deals.md) ------------------------------------------------------------------

  var K = [0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2];

  /* SHA-256 of a byte array: the 32 bytes of the digest. */
  function sha256(bytes) {
    var h = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];
    var length = bytes.length, padded = bytes.slice();
    padded.push(0x80);
    while (padded.length % 64 !== 56) padded.push(0);
    var bits = length * 8;
    for (var i = 7; i >= 0; i--) padded.push(i >= 4 ? Math.floor(bits / Math.pow(2, 8 * i)) & 0xff : (bits >>> (8 * i)) & 0xff);
    var w = new Array(64);
    for (var start = 0; start < padded.length; start += 64) {
      for (var t = 0; t < 16; t++) {
        var at = start + 4 * t;
        w[t] = ((padded[at] << 24) | (padded[at + 1] << 16) | (padded[at + 2] << 8) | padded[at + 3]) >>> 0;
      }
      for (t = 16; t < 64; t++) {
        var x = w[t - 15], y = w[t - 2];
        var s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
        var s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
        w[t] = (w[t - 16] + s0 + w[t - 7] + s1) >>> 0;
      }
      var a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
      for (t = 0; t < 64; t++) {
        var e1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
        var t1 = (hh + e1 + ((e & f) ^ (~e & g)) + K[t] + w[t]) >>> 0;
        var a0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
        var t2 = (a0 + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
        hh = g; g = f; f = e; e = (d + t1) >>> 0; d = c; c = b; b = a; a = (t1 + t2) >>> 0;
      }
      h = [(h[0] + a) >>> 0, (h[1] + b) >>> 0, (h[2] + c) >>> 0, (h[3] + d) >>> 0,
        (h[4] + e) >>> 0, (h[5] + f) >>> 0, (h[6] + g) >>> 0, (h[7] + hh) >>> 0];
    }
    var out = [];
    h.forEach(function (word) { out.push(word >>> 24, (word >>> 16) & 0xff, (word >>> 8) & 0xff, word & 0xff); });
    return out;
  }

  /* UTF-8 bytes of a text (a seed's key, a stream's message). */
  function utf8(text) {
    var out = [];
    for (var i = 0; i < text.length; i++) {
      var point = text.codePointAt(i);
      if (point > 0xffff) i++;
      if (point < 0x80) out.push(point);
      else if (point < 0x800) out.push(0xc0 | (point >> 6), 0x80 | (point & 63));
      else if (point < 0x10000) out.push(0xe0 | (point >> 12), 0x80 | ((point >> 6) & 63), 0x80 | (point & 63));
      else out.push(0xf0 | (point >> 18), 0x80 | ((point >> 12) & 63), 0x80 | ((point >> 6) & 63), 0x80 | (point & 63));
    }
    return out;
  }

  function hmacSha256(key, message) {
    if (key.length > 64) key = sha256(key);
    var inner = [], outer = [];
    for (var i = 0; i < 64; i++) {
      var k = i < key.length ? key[i] : 0;
      inner.push(k ^ 0x36);
      outer.push(k ^ 0x5c);
    }
    return sha256(outer.concat(sha256(inner.concat(message))));
  }

  /* The HMAC key: the seed's text. A number past 2^53 did not survive JSON.parse exactly: refused. */
  function seedText(seed) {
    if (typeof seed === "string") return seed;
    if (!(Math.abs(seed) <= 9007199254740991)) {
      throw optionsError("the seed " + seed + " is too large to be read exactly here (integers below 2^53 are)");
    }
    return String(seed);
  }

  /* Unbiased integers from the byte stream of (seed, purpose). */
  function Draws(seed, purpose) {
    this.key = utf8(seedText(seed));
    this.prefix = "deal/v2/" + purpose + "/";
    this.block = 0;
    this.bytes = [];
  }
  Draws.prototype.below = function (m) {
    var limit = 4294967296 - 4294967296 % m;
    for (;;) {
      if (!this.bytes.length) {
        this.bytes = hmacSha256(this.key, utf8(this.prefix + this.block));
        this.block += 1;
      }
      var b = this.bytes.splice(0, 4);
      var x = ((b[0] << 24) | (b[1] << 16) | (b[2] << 8) | b[3]) >>> 0;
      if (x < limit) return x % m;
    }
  };

  function dealFromSeed(seed, round, deck, players, dealer) {
    var cards = sorted(deck), draws = new Draws(seed, "round/" + round);
    for (var i = cards.length - 1; i > 0; i--) {
      var j = draws.below(i + 1), kept = cards[i];
      cards[i] = cards[j];
      cards[j] = kept;
    }
    var hands = range(players).map(function () { return []; });
    cards.forEach(function (c, k) { hands[(dealer + 1 + k) % players].push(c); });
    return hands.map(sorted);
  }

  function firstDealer(seed, players) { return new Draws(seed, "dealer").below(players); }

  // ----- the games' rule books ------------------------------------------------------------------------------

  function followSuit(hand, trick) {
    if (!trick.length) return hand.slice();
    var same = suitRun(hand, suitOf(trick[0]));
    return same.length ? same : hand.slice();
  }
  function suitRun(hand, suit) { return hand.filter(function (c) { return suitOf(c) === suit; }); }
  function highestOfLedSuit(trick, seats) {
    var led = suitOf(trick[0]), best = 0;
    for (var i = 1; i < trick.length; i++) if (suitOf(trick[i]) === led && trick[i] > trick[best]) best = i;
    return seats[best];
  }
  function pointsTaken(won, value) {
    return won.map(function (cards) { return cards.reduce(function (sum, c) { return sum + value[c]; }, 0); });
  }
  function heartsPassOffset(players, round) {
    var cycle = players === 4 ? [LEFT, RIGHT, ACROSS, HOLD] : [LEFT, RIGHT, HOLD];
    return cycle[round % cycle.length];
  }
  function withoutTwoOfClubsForThree(players) {
    return range(52).filter(function (c) { return !(players === 3 && c === TWO_OF_CLUBS); });
  }
  function targetOption(value) { return {default: value, minimum: 1, maximum: MAX_TARGET}; }

  /* The base rule book (engine/rules.py: Rules): follow suit, no trump, highest of the suit led wins. */
  var Base = {
    hasSorePhase: false, lowWins: false, passCount: 0,
    validateOptions: function (players, options) {
      var info = this.info;
      if (!isInt(players)) throw optionsError("players must be an integer, not " + repr(players));
      if (players < info.min || players > info.max) {
        var span = info.min === info.max ? "exactly " + info.min : info.min + " to " + info.max;
        throw optionsError(info.name + " is played by " + span + " players, not " + players);
      }
      if (!isObject(options)) throw optionsError("options must be an object");
      var known = Object.keys(info.options);
      var unknown = Object.keys(options).filter(function (k) { return known.indexOf(k) < 0; }).sort();
      if (unknown.length) {
        throw optionsError("unknown option(s) for " + info.id + ": " + unknown.join(", ") + " (known: " +
          (known.slice().sort().join(", ") || "none") + ")");
      }
      var out = {};
      known.forEach(function (k) { out[k] = info.options[k].default; });
      var self = this;
      Object.keys(options).forEach(function (k) { out[k] = self.checkOption(k, options[k], players); });
      return out;
    },
    checkOption: function (key, value) {
      var spec = this.info.options[key];
      if (!isInt(value)) throw optionsError("option " + key + " must be an integer, not " + repr(value));
      if (value < spec.minimum) throw optionsError("option " + key + " must be at least " + spec.minimum + ", not " + value);
      if (value > spec.maximum) throw optionsError("option " + key + " must be at most " + spec.maximum + ", not " + value);
      return value;
    },
    deck: function () { return range(52); },
    firstDealerFromSeed: false,
    passOffset: function () { return null; },
    firstLeader: function (g) { return (g.dealer + 1) % g.players; },
    legalPlays: function (g, seat) { return followSuit(g.hands[seat], g.trick); },
    onPlay: function () {},
    trickWinner: function (g) { return highestOfLedSuit(g.trick, g.trickSeats); },
    gameOver: function (g) {
      var target = g.options.target;
      return g.totals.some(function (t) { return t >= target; });
    },
    winners: function (totals) {
      var best = this.lowWins ? Math.min.apply(null, totals) : Math.max.apply(null, totals);
      return range(totals.length).filter(function (s) { return totals[s] === best; });
    },
    whyNot: function (g) { return "you must follow the suit led (" + SUITS[suitOf(g.trick[0])] + ")"; },
    facts: function () { return {}; }
  };
  function rulebook(base, own) {
    var book = Object.create(base);
    Object.keys(own).forEach(function (k) { book[k] = own[k]; });
    return book;
  }

  /* Hearts family (engine/games/hearts.py): pass three, the opening club leads, points by card, lowest wins. */
  var HeartsFamily = rulebook(Base, {
    lowWins: true, passCount: 3, noPointsOnFirstTrick: false,
    passOffset: heartsPassOffset,
    openingCard: function () { return TWO_OF_CLUBS; },
    firstLeader: function (g) {
      var opener = this.openingCard(g.players);
      for (var s = 0; s < g.players; s++) if (g.hands[s].indexOf(opener) >= 0) return s;
      return 0;
    },
    legalPlays: function (g, seat) {
      var hand = g.hands[seat], points = this.points;
      if (g.trick.length) {
        var same = suitRun(hand, suitOf(g.trick[0]));
        if (same.length) return same;
        if (this.noPointsOnFirstTrick && !g.tricks.length) {
          var clean = hand.filter(function (c) { return !points[c]; });
          return clean.length ? clean : hand.slice();
        }
        return hand.slice();
      }
      if (!g.tricks.length) return [this.openingCard(g.players)];
      return this.legalLeads(g, seat);
    },
    legalLeads: function (g, seat) { return g.hands[seat].slice(); },
    whyNot: function (g, seat) {
      if (!g.trick.length && !g.tricks.length) {
        return "the " + CODES[this.openingCard(g.players)] + " leads the first trick (" + this.leadRuling + ")";
      }
      return Base.whyNot.call(this, g, seat);
    },
    roundPoints: function (g) { return pointsTaken(g.won, this.points); }
  });

  var COMMONS_POINTS = range(52).map(function (c) { return suitOf(c) === HEARTS ? 1 : c === QUEEN_OF_SPADES ? 13 : 0; });
  var CardCommons = rulebook(HeartsFamily, {
    info: {id: "card-commons", name: "Card Commons", min: 3, max: 4, options: {target: targetOption(100)}},
    points: COMMONS_POINTS, leadRuling: "R-CC-LEAD",
    newExtra: function () { return null; },
    deck: withoutTwoOfClubsForThree,
    openingCard: function (players) { return players === 3 ? THREE_OF_CLUBS : TWO_OF_CLUBS; },
    moonShooter: function (g) {  // R-CC-MOON: every heart and the Q♠
      for (var s = 0; s < g.players; s++) if (pointsTaken([g.won[s]], COMMONS_POINTS)[0] === 26) return s;
      return null;
    },
    roundPoints: function (g) {
      var shooter = this.moonShooter(g);
      if (shooter === null) return pointsTaken(g.won, COMMONS_POINTS);
      return range(g.players).map(function (s) { return s === shooter ? -26 : 0; });
    }
  });

  var SPOT_POINTS = range(52).map(function (c) { return suitOf(c) === HEARTS ? rankOf(c) : c === QUEEN_OF_SPADES ? 25 : 0; });
  var SpotHearts = rulebook(HeartsFamily, {
    info: {id: "spot-hearts", name: "Spot Hearts", min: 4, max: 4, options: {target: targetOption(500)}},
    points: SPOT_POINTS, leadRuling: "R-SH-LEAD", noPointsOnFirstTrick: true, firstDealerFromSeed: true,
    newExtra: function () { return {heartsBroken: false}; },
    legalLeads: function (g, seat) {  // R-SH-BREAK
      var hand = g.hands[seat];
      if (g.extra.heartsBroken) return hand.slice();
      var other = hand.filter(function (c) { return suitOf(c) !== HEARTS; });
      return other.length ? other : hand.slice();
    },
    whyNot: function (g, seat) {
      if (!g.trick.length && g.tricks.length) return "hearts may not be led until a heart or the QS has been played (R-SH-BREAK)";
      var led = g.trick.length ? suitOf(g.trick[0]) : -1;
      if (g.trick.length && !g.hands[seat].some(function (c) { return suitOf(c) === led; })) {
        return "no heart and not the QS on the first trick (R-SH-FIRST)";
      }
      return HeartsFamily.whyNot.call(this, g, seat);
    },
    onPlay: function (g, seat, played) { if (SPOT_POINTS[played]) g.extra.heartsBroken = true; },
    facts: function (g) { return {hearts_broken: g.extra.heartsBroken}; }
  });

  /* R-SL-SECOND: the seats on the second-highest distinct total score it. */
  function secondPlaceScores(totals) {
    var distinct = totals.filter(function (t, i) { return totals.indexOf(t) === i; }).sort(byNumber).reverse();
    if (distinct.length < 2) return totals.map(function () { return 0; });
    return totals.map(function (t) { return t === distinct[1] ? t : 0; });
  }
  var SLOPPY_VALUE = range(52).map(function (c) { return rankOf(c) === 14 ? 1 : rankOf(c); });
  var SloppySeconds = rulebook(Base, {
    info: {id: "sloppy-seconds", name: "Sloppy Seconds", min: 3, max: 4, options: {target: targetOption(300)}},
    newExtra: function () { return {broken: [], trump: null}; },
    deck: withoutTwoOfClubsForThree,
    onPlay: function (g, seat, played) {  // R-SL-BREAK: the second distinct suit broken is trump, at once
      var suit = suitOf(played), own = g.extra;
      if (g.trick.length > 1 && suit !== suitOf(g.trick[0]) && own.broken.indexOf(suit) < 0) {
        own.broken.push(suit);
        if (own.broken.length === 2 && own.trump === null) own.trump = suit;
      }
    },
    trickWinner: function (g) {
      var trump = g.extra.trump, trick = g.trick, best = -1;
      if (trump !== null) {
        for (var i = 0; i < trick.length; i++) {
          if (suitOf(trick[i]) === trump && (best < 0 || trick[i] > trick[best])) best = i;
        }
        if (best >= 0) return g.trickSeats[best];  // R-SL-WIN
      }
      return highestOfLedSuit(trick, g.trickSeats);
    },
    roundPoints: function (g) {
      var points = range(g.players).map(function () { return 0; });
      for (var suit = 0; suit < 4; suit++) {
        var totals = g.won.map(function (won) {
          return won.reduce(function (sum, c) { return sum + (suitOf(c) === suit ? SLOPPY_VALUE[c] : 0); }, 0);
        });
        secondPlaceScores(totals).forEach(function (p, seat) { points[seat] += p; });
      }
      return points.map(function (p) { return Math.max(p, 5); });  // R-SL-MIN5
    },
    facts: function (g) { return {trump: g.extra.trump === null ? null : SUITS[g.extra.trump]}; }
  });

  // Sore Spot (engine/games/sore_spot.py). R-SS-NUM: A = 0, 2..10 face value, J 11, Q 12, K 13.
  var NUMBER = range(52).map(function (c) { return rankOf(c) === 14 ? 0 : rankOf(c); });
  var STANDARD_DECKS = {
    3: range(39), 4: range(52),
    5: range(52).filter(function (c) { return c !== 0 && c !== 13; }),
    6: range(52).filter(function (c) { return rankOf(c) !== 2; })
  };
  var A_TO_Q = range(52).filter(function (c) { return rankOf(c) !== 13; });
  function soreTrickWinnerIndex(trick) {  // R-SS-WIN
    var led = suitOf(trick[0]), bestOff = null, bestLed = null;
    trick.forEach(function (c, i) {
      if (rankOf(c) === 14) return;
      if (suitOf(c) !== led) {
        if (bestOff === null || NUMBER[c] > NUMBER[trick[bestOff]]) bestOff = i;
      } else if (bestLed === null || NUMBER[c] > NUMBER[trick[bestLed]]) bestLed = i;
    });
    return bestOff !== null ? bestOff : bestLed;
  }
  var SoreSpot = rulebook(Base, {
    info: {id: "sore-spot", name: "Sore Spot", min: 3, max: 6, options: {
      rounds: {default: null, minimum: 1, maximum: 52}, deck: {default: "standard"}}},
    hasSorePhase: true,
    newExtra: function (players) { return {soreCards: range(players).map(function () { return null; })}; },
    validateOptions: function (players, options) {
      var out = Base.validateOptions.call(this, players, options);
      if (out.rounds === null) out.rounds = players;
      return out;
    },
    checkOption: function (key, value, players) {
      if (key !== "deck") {
        if (key === "rounds" && value === null) return null;
        return Base.checkOption.call(this, key, value, players);
      }
      if (value === "a-to-q" && players !== 3) throw optionsError("deck 'a-to-q' is the 3-player variant (48 cards, 16 each)");
      if (typeof value === "string") {
        if (value !== "standard" && value !== "a-to-q") {
          throw optionsError("deck must be one of standard, a-to-q or a list of card codes");
        }
        return value;
      }
      if (!Array.isArray(value)) throw optionsError("deck must be a preset name or a list of card codes");
      var cards;
      try {
        cards = value.map(parseCard);
      } catch (error) {
        throw optionsError("deck: " + error.message);
      }
      cards = sorted(cards.filter(function (c, i) { return cards.indexOf(c) === i; }));
      if (cards.length !== value.length) throw optionsError("deck lists a card twice");
      if (cards.length % players || Math.floor(cards.length / players) < 2) {
        throw optionsError("deck of " + cards.length + " cards does not deal evenly to " + players +
          " players with at least 2 each");
      }
      return codes(cards);
    },
    deck: function (players, options) {
      var choice = options.deck;
      if (choice === "standard") return STANDARD_DECKS[players].slice();
      if (choice === "a-to-q") return A_TO_Q.slice();
      return choice.map(parseCard);
    },
    legalPlays: function (g, seat) { return g.hands[seat].slice(); },  // no need to follow suit
    onSecretCards: function (g, laid) { laid.forEach(function (entry) { g.extra.soreCards[entry[0]] = entry[1]; }); },
    trickWinner: function (g) {
      var index = soreTrickWinnerIndex(g.trick);
      return index === null ? null : g.trickSeats[index];
    },
    roundPoints: function (g) {  // R-SS-SCORE
      var laid = g.extra.soreCards.filter(function (c) { return c !== null; });
      return laid.map(function (sore, seat) {
        var suit = suitOf(sore);
        return g.won[seat].reduce(function (sum, c) { return sum + (suitOf(c) === suit ? -NUMBER[c] : 1); }, -NUMBER[sore]);
      });
    },
    gameOver: function (g) { return g.round + 1 >= g.options.rounds; }
  });

  var RULES = {"sore-spot": SoreSpot, "card-commons": CardCommons, "sloppy-seconds": SloppySeconds,
    "spot-hearts": SpotHearts};

  // ----- the game: engine/state.py's GameState, as far as a replay needs it -------------------------------

  function parseDeal(rules, players, options, index, deal) {
    var where = "deals[" + index + "]";
    if (!isObject(deal) || !deal.hasOwnProperty("hands")) throw optionsError(where + " must be an object with 'dealer' and 'hands'");
    var dealer = deal.hasOwnProperty("dealer") ? deal.dealer : 0;
    if (!isInt(dealer) || dealer < 0 || dealer >= players) throw optionsError(where + ".dealer must be a seat from 0 to " + (players - 1));
    var hands = deal.hands;
    if (!Array.isArray(hands) || hands.length !== players) throw optionsError(where + ".hands must list " + players + " hands, one per seat");
    var parsed;
    try {
      parsed = hands.map(function (hand) {
        if (!Array.isArray(hand)) throw new EngineError("CardError", "a hand must be a list of card codes");
        return hand.map(parseCard);
      });
    } catch (error) {
      throw optionsError(where + ": " + error.message);
    }
    var flat = sorted([].concat.apply([], parsed)), deck = sorted(rules.deck(players, options));
    var sameSize = parsed.every(function (h) { return h.length === parsed[0].length; });
    if (!sameSize || flat.join() !== deck.join()) {
      throw optionsError(where + ": hands must be equal in size and hold exactly the game's " + deck.length + " cards once each");
    }
    return {dealer: dealer, hands: parsed};
  }

  function Game(record) {
    if (!isObject(record)) throw optionsError("a record must be a JSON object");
    var seed = record.seed === undefined ? null : record.seed;
    if (seed !== null && !(record.dealing === 2)) {  // R-DEAL: later rounds come from the seed by this dealing
      var said = record.dealing === undefined || record.dealing === null ? "does not say its dealing version"
        : "says dealing version " + repr(record.dealing);
      throw new EngineError("UnknownDealingError", "the record " + said +
        "; this engine deals version 2 (\"dealing\": 2, docs/deals.md)");
    }
    ["game", "players"].forEach(function (key) {
      if (!record.hasOwnProperty(key)) throw optionsError("record lacks '" + key + "'");
    });
    var rules = RULES[record.game];
    if (typeof record.game !== "string" || !rules) {
      throw optionsError("unknown game " + repr(record.game) + "; known: " + Object.keys(RULES).join(", "));
    }
    var players = record.players;
    this.rules = rules;
    this.options = rules.validateOptions(players, falsy(record.options) ? {} : record.options);
    if (seed !== null && typeof seed !== "string" && !isInt(seed)) {
      throw optionsError("seed must be an integer or a string, not " + repr(seed));
    }
    var options = this.options, given = falsy(record.deals) ? [] : record.deals;
    if (!Array.isArray(given)) throw optionsError("deals must be a list of deals");
    this.given = given.map(function (deal, i) { return parseDeal(rules, players, options, i, deal); });
    if (seed === null && !this.given.length) throw optionsError("a game needs a seed or at least one explicit deal");
    this.players = players;
    this.seed = seed;
    this.deck = sorted(rules.deck(players, options));
    this.totals = range(players).map(function () { return 0; });
    this.history = [];
    this.winners = [];
    this.over = false;
    this.round = -1;
    if (this.given.length) this.firstDealer = this.given[0].dealer;
    else if (rules.firstDealerFromSeed) this.firstDealer = firstDealer(seed, players);
    else this.firstDealer = 0;
    this.startRound();
  }

  Game.prototype.startRound = function () {
    this.round += 1;
    var n = this.players;
    if (this.round < this.given.length) {
      var deal = this.given[this.round];
      this.dealer = deal.dealer;
      this.hands = deal.hands.map(sorted);
    } else {  // a seed is there: a game without one has a deal for every round or stops with an error
      if (this.seed === null) throw optionsError("round " + this.round + " has no explicit deal and the game has no seed");
      this.dealer = (this.firstDealer + this.round) % n;
      this.hands = dealFromSeed(this.seed, this.round, this.deck, n, this.dealer);
    }
    this.leader = null;
    this.turn = -1;
    this.trick = [];
    this.trickSeats = [];
    this.tricks = [];
    this.won = range(n).map(function () { return []; });
    this.pending = [];  // [seat, cards] in the order chosen
    this.extra = this.rules.newExtra(n);
    this.passOffset = this.rules.passOffset(n, this.round);
    if (this.rules.hasSorePhase) this.phase = "sore";
    else if (this.passOffset !== null && this.passOffset !== HOLD) this.phase = "pass";
    else this.startPlay();
  };

  Game.prototype.startPlay = function () {
    this.phase = "play";
    this.leader = this.rules.firstLeader(this);
    this.turn = this.leader;
  };

  Game.prototype.hasPending = function (seat) {
    return this.pending.some(function (entry) { return entry[0] === seat; });
  };

  Game.prototype.toAct = function () {
    if (this.phase === "play") return [this.turn];
    if (this.phase === "over") return [];
    var self = this;
    return range(this.players).filter(function (s) { return !self.hasPending(s); });
  };

  Game.prototype.legal = function (seat) {
    if (this.phase === "play") return seat === this.turn ? this.rules.legalPlays(this, seat) : [];
    if (this.phase === "over" || this.hasPending(seat)) return [];
    return this.hands[seat].slice();
  };

  /* Apply seat's move, or throw the engine's error; returns the move in canonical codes. */
  Game.prototype.apply = function (seat, move) {
    if (!isInt(seat) || seat < 0 || seat >= this.players) {
      throw new EngineError("MalformedMoveError", "seat must be an integer from 0 to " + (this.players - 1) + ", not " + repr(seat));
    }
    if (this.phase === "over") throw new EngineError("GameOverError", "the game is over", []);
    var toAct = this.toAct();
    if (toAct.indexOf(seat) < 0) {
      throw new EngineError("NotYourTurnError", "seat " + seat + " has nothing to decide now; waiting for seat(s) " + toAct.join(" "), []);
    }
    var legal = this.legal(seat), cards;
    try {
      cards = this.parse(move);
    } catch (error) {
      throw new EngineError("MalformedMoveError", error.message, codes(legal));
    }
    var bad = cards.filter(function (c) { return legal.indexOf(c) < 0; });
    if (bad.length) {
      var why = this.hands[seat].indexOf(bad[0]) < 0 ? CODES[bad[0]] + " is not in seat " + seat + "'s hand"
        : CODES[bad[0]] + " may not be played now: " + this.rules.whyNot(this, seat);
      throw new EngineError("IllegalMoveError", why, codes(legal));
    }
    var canonical = this.phase === "pass" ? codes(cards) : CODES[cards[0]];
    if (this.phase === "play") {
      this.play(seat, cards[0]);
    } else {
      this.pending.push([seat, cards]);
      if (this.pending.length === this.players) this.resolveSimultaneous();
    }
    return canonical;
  };

  Game.prototype.parse = function (move) {
    if (this.phase === "pass") {
      var want = this.rules.passCount;
      if (!Array.isArray(move) || move.length !== want) {
        throw new Error("a pass is a list of " + want + ' card codes, e.g. ["2C", "3D", "QS"]');
      }
      var cards = move.map(cardOf);
      if (cards.filter(function (c, i) { return cards.indexOf(c) === i; }).length !== want) {
        throw new Error("a pass names " + want + " different cards");
      }
      return cards;
    }
    if (typeof move !== "string") {
      throw new Error("a " + (this.phase === "sore" ? "sore card" : "play") + ' is one card code such as "QS", not ' + repr(move));
    }
    return [cardOf(move)];
  };

  function removeCard(hand, c) { hand.splice(hand.indexOf(c), 1); }

  Game.prototype.resolveSimultaneous = function () {
    var self = this, n = this.players;
    if (this.phase === "sore") {
      var laid = this.pending.map(function (entry) {
        removeCard(self.hands[entry[0]], entry[1][0]);
        return [entry[0], entry[1][0]];
      });
      this.rules.onSecretCards(this, laid);
    } else {
      var offset = this.passOffset || 0, passed = range(n).map(function () { return null; });
      this.pending.forEach(function (entry) {
        entry[1].forEach(function (c) { removeCard(self.hands[entry[0]], c); });
        passed[entry[0]] = sorted(entry[1]);
      });
      for (var seat = 0; seat < n; seat++) {
        var target = ((seat + offset) % n + n) % n;
        this.hands[target] = sorted(this.hands[target].concat(passed[seat] || []));
      }
    }
    this.pending = [];
    this.startPlay();
  };

  Game.prototype.play = function (seat, c) {
    removeCard(this.hands[seat], c);
    this.trick.push(c);
    this.trickSeats.push(seat);
    this.rules.onPlay(this, seat, c);
    if (this.trick.length < this.players) {
      this.turn = (seat + 1) % this.players;
      return;
    }
    var winner = this.rules.trickWinner(this), leader = this.leader;
    this.tricks.push({leader: leader, cards: codes(this.trick), winner: winner});
    if (winner !== null) {
      this.won[winner] = this.won[winner].concat(this.trick);
      leader = this.leader = winner;
    }
    // winner null (Sore Spot, only Aces, R-SS-WIN): the cards leave play and the same seat leads.
    this.trick = [];
    this.trickSeats = [];
    this.turn = leader;
    if (!this.hands[leader].length) this.endRound();
  };

  Game.prototype.endRound = function () {
    var points = this.rules.roundPoints(this);
    for (var seat = 0; seat < this.players; seat++) this.totals[seat] += points[seat];
    this.history.push({dealer: this.dealer, tricks: this.tricks.slice(), points: points});
    if (this.rules.gameOver(this)) {
      this.phase = "over";
      this.over = true;
      this.winners = this.rules.winners(this.totals);
    } else {
      this.startRound();
    }
  };

  Game.prototype.completedTricks = function () {
    return this.history.reduce(function (sum, r) { return sum + r.tricks.length; }, 0) + this.tricks.length;
  };
  Game.prototype.handCodes = function () { return this.hands.map(codes); };

  // ----- the frames: engine/frames.py, step for step -------------------------------------------------------

  function replayFrames(record) {
    var game = new Game(record), players = game.players, frames = [];
    var hands = game.handCodes(), tricksPerRound = hands[0].length, trickNo = 0, current = [], choices = {};
    var soreCards = null, applied = 0, gameRound = game.round;

    function frame(kind, label, extra) {
      var facts = game.rules.facts(game);
      var out = {kind: kind, label: label, moves: applied, round: gameRound, trick_no: trickNo,
        tricks_in_round: tricksPerRound, hands: hands.map(function (h) { return h.slice(); }),
        totals: game.totals.slice(), trick: null, sore_cards: soreCards,
        trump: facts.trump === undefined ? null : facts.trump,
        hearts_broken: facts.hearts_broken === undefined ? null : facts.hearts_broken};
      Object.keys(extra || {}).forEach(function (k) { out[k] = extra[k]; });
      frames.push(out);
    }
    function chosen() { return range(players).map(function (s) { return choices.hasOwnProperty(s) ? choices[s] : null; }); }

    frame("deal", "Round " + (gameRound + 1) + ": the deal", {dealer: game.dealer});
    var moves = record.moves === undefined ? [] : record.moves;
    if (!Array.isArray(moves)) throw optionsError("the record's moves must be a list");
    for (var index = 0; index < moves.length; index++) {
      var entry = moves[index];
      if (!isObject(entry) || !entry.hasOwnProperty("seat") || !entry.hasOwnProperty("move")) {
        throw optionsError("moves[" + index + "] must be an object with 'seat' and 'move'");
      }
      var seat = entry.seat, phase = game.phase, roundBefore = game.round, completedBefore = game.completedTricks();
      var move = game.apply(seat, entry.move);
      applied += 1;
      if (phase === "pass" || phase === "sore") {
        choices[seat] = move;
        if (game.phase !== phase) {
          hands = game.handCodes();
          tricksPerRound = hands[0].length;
          if (phase === "pass") {
            var direction = game.passOffset === null ? "" : DIRECTION_NAMES[String(game.passOffset)];
            frame("pass", ("Round " + (gameRound + 1) + ": cards passed " + direction).replace(/\s+$/, ""), {passed: chosen()});
          } else {
            soreCards = chosen();
            frame("sore", "Round " + (gameRound + 1) + ": sore cards laid");
          }
          choices = {};
        }
        continue;
      }
      hands[seat] = hands[seat].filter(function (c) { return c !== move; });
      current.push({seat: seat, card: move});
      if (game.completedTricks() > completedBefore) {
        trickNo += 1;
        var taken = game.tricks.length ? game.tricks[game.tricks.length - 1]
          : game.history[game.history.length - 1].tricks.slice(-1)[0];
        var winner = taken.winner;
        var who = winner !== null ? "seat " + winner + " takes it" : "nobody takes it";
        frame("trick", "Round " + (gameRound + 1) + ", trick " + trickNo + " of " + tricksPerRound + ": " + who,
          {trick: {leader: current[0].seat, cards: current, winner: winner}});
        current = [];
      }
      if (game.round !== roundBefore || game.over) {
        var points = game.history[game.history.length - 1].points;
        frame("round", "Round " + (gameRound + 1) + " over: points " + points.join(" / "), {points: points.slice()});
        if (game.over) break;
        gameRound = game.round;
        trickNo = 0;
        soreCards = null;
        hands = game.handCodes();
        tricksPerRound = hands[0].length;
        frame("deal", "Round " + (gameRound + 1) + ": the deal", {dealer: game.dealer});
      }
    }
    if (game.over) {
      var winners = game.winners.slice(), many = winners.length > 1;
      frame("end", "Game over: seat" + (many ? "s" : "") + " " + winners.join(", ") + " win" + (many ? "" : "s"), {winners: winners});
    }
    return frames;
  }

  // ----- the files a user has -------------------------------------------------------------------------------

  function looksLikeRecord(value) { return isObject(value) && value.hasOwnProperty("game") && value.hasOwnProperty("moves"); }

  /* Every replay record in a file's text, each with a label to pick it by: an engine record (a `trick-arena
   * match --save-dir` file is one), a JSON list of them, or JSON lines of a bot's match export, each with a
   * `records` list. Throws an Error whose message says what the file is not. */
  function recordsIn(text) {
    var found = [], values = [];
    var trimmed = String(text).replace(/^\uFEFF/, "").trim();
    if (!trimmed) throw new Error("the file is empty");
    try {
      values.push({line: null, value: JSON.parse(trimmed)});
    } catch (whole) {
      var lines = trimmed.split(/\r?\n/);
      lines.forEach(function (line, i) {
        if (!line.trim()) return;
        try {
          values.push({line: i + 1, value: JSON.parse(line)});
        } catch (error) {
          throw new Error(lines.length > 1 ? "line " + (i + 1) + " is not JSON" : "the file is not JSON");
        }
      });
    }
    values.forEach(function (item) {
      var where = item.line === null ? "" : "line " + item.line + " · ";
      var value = item.value;
      var list = Array.isArray(value) ? value : isObject(value) && Array.isArray(value.records) ? value.records : null;
      if (list) {
        var match = isObject(value) ? value.match_id || value.match || value.id : null;
        list.forEach(function (record, n) {
          if (!looksLikeRecord(record)) return;
          found.push({record: record, label: where + (match ? "match " + match + " · " : "") + "game " + (n + 1) +
            " · " + record.game + " · " + record.players + " players"});
        });
      } else if (looksLikeRecord(value)) {
        found.push({record: value, label: where + value.game + " · " + value.players + " players"});
      }
    });
    if (!found.length) {
      throw new Error("no replay record in this file: a record is a JSON object with game, players, deals and moves " +
        "(a saved game of trick-arena match --save-dir, or a line of a bot's match export)");
    }
    return found;
  }

  var api = {replayFrames: replayFrames, recordsIn: recordsIn, deal: dealFromSeed, firstDealer: firstDealer,
    sha256: sha256, hmacSha256: hmacSha256, utf8: utf8, EngineError: EngineError, games: Object.keys(RULES)};
  if (typeof module !== "undefined" && module.exports) module.exports = api;
  else root.TAReplayRules = api;
})(this);

"use strict";
/**
 * Trick Arena bot SDK for Node ≥ 18, no dependencies. A bot is one function, `choose(view) -> move`:
 *
 *   const { run } = require("trickarena");
 *   run({ name: "lowest", games: ["spot-hearts"], choose: (view) => view.decision.legal[0] });
 *
 * `run` gives it a command line: `serve` (an HTTP bot, protocol v1), `practice` (a table against house bots
 * through the move API) and `ladder` (a polling bot on the ladder).
 */
const cards = require("./cards");
const deals = require("./deals");
const { ApiError, ApiUnavailable, ArenaClient, ENDPOINTS } = require("./http");
const { playLadder } = require("./ladder");
const { playSeat, practice } = require("./poll");
const { run } = require("./run");
const { botInfo, createBotServer, serve } = require("./server");

const GAME_IDS = ["sore-spot", "card-commons", "sloppy-seconds", "spot-hearts"];

module.exports = {
  GAME_IDS, ApiError, ApiUnavailable, ArenaClient, ENDPOINTS, botInfo, cards, createBotServer, deals, playLadder, playSeat,
  practice, run, serve,
};

"use strict";
/**
 * Play a seat through the move API: long-poll the seat's state (after=<version>&wait=25: the server answers
 * as soon as anything changes, no timers), decide, post, until the game is over. A 409 (someone moved
 * first, a stale version, our own retried move already landed) means "read again". A 400/422 (the rules
 * refuse the move) is a bug in the bot: thrown as ApiError unless `onRefused` is "fallback", which plays the
 * first legal move instead.
 * @module trickarena/poll
 */
const { ApiError } = require("./http");
const { firstLegal } = require("./cards");

/**
 * @param {import("./http").ArenaClient} api
 * @param {string} tableId @param {number} seat @param {string} token
 * @param {import("../index").Bot} bot
 * @param {{onRefused?: "throw"|"fallback", waitS?: number, onMove?: (state: object, move: any) => void}} [options]
 * @returns {Promise<object>} the final seat state
 */
async function playSeat(api, tableId, seat, token, bot, { onRefused = "throw", waitS = 25, onMove } = {}) {
  let after = -1;
  for (;;) {
    const state = await api.seatState(tableId, seat, token, after, waitS);
    if (state.status === "over") return state;
    if (!state.your_turn || !state.view.decision) {
      after = state.version;
      continue;
    }
    let move = await bot.choose(state.view);
    try {
      await api.move(tableId, seat, token, move, state.version);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (error.status === 409) {
        after = -1;
        continue;
      }
      if ((error.status === 400 || error.status === 422) && onRefused === "fallback") {
        console.warn(`seat ${seat}: move ${JSON.stringify(move)} refused (${error.problem.detail}); `
          + "playing the first legal move");
        move = firstLegal(state.view);
        await api.move(tableId, seat, token, move, state.version);
      } else {
        throw error;
      }
    }
    if (onMove) onMove(state, move);
    after = -1; // our own move may have made it our turn again (we won the trick): look at once
  }
}

/**
 * Open a table with `bot` in seat 0 and house bots elsewhere and play it to the end.
 * @returns {Promise<{tableId: string, final: object}>}
 */
async function practice(api, bot, game, opponents = ["heuristic", "heuristic", "heuristic"], options = {},
  playOptions = {}) {
  const table = await api.createTable(game, ["open", ...opponents], options);
  const joined = await api.join(table.table_id, 0);
  const final = await playSeat(api, table.table_id, 0, joined.token, bot, playOptions);
  return { tableId: table.table_id, final };
}

module.exports = { playSeat, practice };

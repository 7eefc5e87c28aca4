"use strict";
/**
 * A polling bot on the ladder: a bot registered without a URL is seated by the arena at real API tables;
 * GET /api/bots/{id}/ladder-seats (owner token) lists them with their seat tokens. Each new seat is played
 * concurrently by playSeat (refused moves fall back to the first legal card). The list is watched by a
 * long-poll (`after=<X-Seats-Version>&wait=S`), so a new seat is seen the moment the arena publishes it; the
 * held long-poll also keeps the bot present (seated at new matches). Each decision has the ladder's deadline
 * (1 s by default): miss it and the arena strikes the bot and plays a fallback move.
 * @module trickarena/ladder
 */
const { ApiUnavailable, ArenaClient, sleep } = require("./http");
const { playSeat } = require("./poll");
const { botInfo } = require("./server");

/**
 * Play every ladder seat of `botId` until `signal` aborts (or `maxGames` finished); resolves with games played.
 * @param {{waitS?: number, signal?: AbortSignal, maxGames?: number, log?: (line: string) => void}} [options]
 */
async function playLadder(apiUrl, botId, ownerToken, bot, { waitS = 25, signal, maxGames, log } = {}) {
  const api = new ArenaClient(apiUrl, { signal });
  const playing = new Map();
  let finished = 0;
  let version = null;
  const say = log || (() => {});
  while (!(signal && signal.aborted) && (maxGames === undefined || finished < maxGames)) {
    let seats = [];
    try {
      ({ seats, version } = await api.watchLadderSeats(botId, ownerToken,
        { after: version, waitS, version: botInfo(bot).version }));
    } catch (error) {
      if (signal && signal.aborted) break;
      if (error instanceof ApiUnavailable) {  // the service restarting: read the list afresh in a moment
        version = null;
        await sleep(1000, signal);
        continue;
      }
      throw error;
    }
    for (const entry of seats) {
      const key = `${entry.table}/${entry.seat}`;
      if (playing.has(key)) continue;
      say(`new ladder seat: table ${entry.table} seat ${entry.seat} (match ${entry.match})`);
      const seatApi = new ArenaClient(apiUrl, { signal });
      playing.set(key, playSeat(seatApi, entry.table, entry.seat, entry.token, bot, { onRefused: "fallback", waitS: 10 })
        .catch((error) => { if (!(signal && signal.aborted)) say(`ladder seat ${key} ended: ${error.message}`); })
        .finally(() => { finished += 1; }));
    }
  }
  await Promise.allSettled(playing.values());
  return finished;
}

module.exports = { playLadder };

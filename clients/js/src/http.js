"use strict";
/**
 * ArenaClient: the Trick Arena API over Node's own fetch (keep-alive by default). Retries connection
 * failures, 429 (after its Retry-After) and 5xx with exponential backoff and jitter; every other error
 * answer throws ApiError with the RFC 9457 problem body. Moves are safe to retry: a move carries the version
 * it was decided at, so a duplicate is refused with 409 and never applied twice.
 * @module trickarena/http
 */
const RETRY_STATUSES = new Set([429, 500, 502, 503, 504, 507]); // 507: the store is full for now

/**
 * Every public route of the service's OpenAPI document → the ArenaClient method calling it (the Python SDK's
 * `ENDPOINTS` in clients/python/trickarena/api.py is the same table with its own names);
 * tests/clients/test_sdk_parity.py holds both to the document. The operator's admin API (`/api/admin/...`)
 * and `/metrics` are not part of the SDK.
 */
const ENDPOINTS = Object.freeze({
  "GET /api/health": "health",
  "GET /api/games": "games",
  "GET /api/games/{game_id}": "game",
  "GET /api/games/{game_id}/schema": "gameSchema",
  "POST /api/tables": "createTable",
  "GET /api/tables": "tables",
  "GET /api/tables/{table_id}": "table",
  "GET /api/tables/{table_id}/replay": "replay",
  "POST /api/tables/{table_id}/seats/{seat}/join": "join",
  "GET /api/tables/{table_id}/seats/{seat}": "seatState",
  "POST /api/tables/{table_id}/seats/{seat}/moves": "move",
  "POST /api/tables/{table_id}/analysis": "requestAnalysis",
  "GET /api/tables/{table_id}/analysis": "analysis",
  "POST /api/bots": "registerBot",
  "GET /api/bots": "bots",
  "GET /api/bots/{bot_id}": "bot",
  "PATCH /api/bots/{bot_id}": "updateBot",
  "DELETE /api/bots/{bot_id}": "deleteBot",
  "GET /api/bots/{bot_id}/ladder-seats": "watchLadderSeats",
  "GET /api/bots/{bot_id}/matches": "botMatches",
  "GET /api/bots/{bot_id}/export": "exportMatches",
  "POST /api/accounts": "createAccount",
  "GET /api/account": "account",
  "GET /api/account/bots": "accountBots",
  "POST /api/account/bots/{bot_id}/adopt": "adoptBot",
  "POST /api/account/keys/rotate": "rotateKey",
  "DELETE /api/account/key": "revokeKey",
  "GET /api/ladders": "ladders",
  "GET /api/ladders/{ladder_id}": "ranking",
  "GET /api/ladders/{ladder_id}/bots/{bot_id}/history": "botHistory",
  "GET /api/ladders/{ladder_id}/matches": "recentMatches",
  "GET /api/matches/{match_id}": "match",
  "GET /api/matches/{match_id}/live": "liveMatch",
  "GET /api/matches/{match_id}/games/{game_no}/replay": "matchReplay",
  "GET /api/matches/{match_id}/bots/{bot_id}/decisions": "decisions",
  "POST /api/matches/{match_id}/games/{game_no}/analysis": "requestAnalysis",
  "GET /api/matches/{match_id}/games/{game_no}/analysis": "analysis",
  "POST /api/challenges": "challenge",
  "GET /api/challenges/{challenge_id}": "getChallenge",
  "POST /api/tournaments": "createTournament",
  "GET /api/tournaments/{tournament_id}": "tournament",
  "GET /api/tournaments/{tournament_id}/standings": "tournamentStandings",
  "POST /api/tournaments/{tournament_id}/entries": "enterTournament",
});
const USER_AGENT = "trickarena-js/0.1";

/** The API answered with an error: `status` and `problem` (the application/problem+json body). */
class ApiError extends Error {
  constructor(status, problem, method, path) {
    super(`${method} ${path} -> ${status} ${problem.title || ""}: ${problem.detail || ""}`);
    this.name = "ApiError";
    this.status = status;
    this.problem = problem;
  }

  /** The legal moves, when a move was refused. */
  get legal() {
    return this.problem.legal || null;
  }
}

/** The API could not be reached (or kept failing) after every retry. */
class ApiUnavailable extends Error {
  constructor(message) {
    super(message);
    this.name = "ApiUnavailable";
  }
}

/** Wait `ms`, or less if `signal` aborts first. */
function sleep(ms, signal) {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      if (signal) signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    if (signal) signal.addEventListener("abort", done, { once: true });
  });
}

class ArenaClient {
  /**
   * @param {string} baseUrl e.g. "http://127.0.0.1:8000"
   * @param {{timeoutMs?: number, retries?: number, backoffMs?: number, maxBackoffMs?: number,
   *          signal?: AbortSignal}} [options]
   */
  constructor(baseUrl, options = {}) {
    const url = new URL(baseUrl);
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error(`not an http(s) URL: ${baseUrl}`);
    this.baseUrl = baseUrl.replace(/\/+$/, "");
    this.timeoutMs = options.timeoutMs ?? 40000;
    this.retries = options.retries ?? 6;
    this.backoffMs = options.backoffMs ?? 200;
    this.maxBackoffMs = options.maxBackoffMs ?? 10000;
    this.signal = options.signal;
  }

  /**
   * One request (retried as documented): the decoded JSON answer, or null for an empty one; with
   * `withHeaders`, `{body, headers}` (the response's Headers) instead. `retry: false` for a request that
   * must not be sent twice (opening an account, rotating its key: a lost answer's key is unreachable).
   */
  async request(method, path, { body, params, token, timeoutMs, withHeaders, retry = true } = {}) {
    const retries = retry ? this.retries : 0;
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries(params || {})) {
      if (value !== undefined && value !== null) query.set(key, String(value));
    }
    const qs = query.toString();
    const url = `${this.baseUrl}${path}${qs ? `?${qs}` : ""}`;
    const headers = { Accept: "application/json", "User-Agent": USER_AGENT };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (token) headers.Authorization = `Bearer ${token}`;
    for (let attempt = 0; ; attempt += 1) {
      let response;
      let raw;
      // One attempt: its own timeout, cut short by the client's signal too (Ctrl-C during a long-poll).
      const attemptController = new AbortController();
      const timer = setTimeout(() => attemptController.abort(new Error("timed out")), timeoutMs ?? this.timeoutMs);
      const cancel = () => attemptController.abort(this.signal.reason);
      if (this.signal) this.signal.addEventListener("abort", cancel, { once: true });
      try {
        response = await fetch(url, {
          method, headers, body: body === undefined ? undefined : JSON.stringify(body),
          signal: attemptController.signal,
        });
        raw = await response.text();
      } catch (error) {
        if (this.signal && this.signal.aborted) throw error;
        if (attempt >= retries) throw new ApiUnavailable(`${method} ${url}: ${error.cause || error}`);
        await sleep(this.delay(attempt, null), this.signal);
        continue;
      } finally {
        clearTimeout(timer);
        if (this.signal) this.signal.removeEventListener("abort", cancel);
      }
      if (RETRY_STATUSES.has(response.status) && attempt < retries) {
        await sleep(this.delay(attempt, response.headers.get("retry-after")), this.signal);
        continue;
      }
      let decoded = null;
      try {
        decoded = raw ? JSON.parse(raw) : null;
      } catch {
        decoded = null;
      }
      if (response.status >= 400) {
        const problem = decoded && typeof decoded === "object" ? decoded
          : { type: "about:blank", title: "Not JSON", status: response.status, detail: raw.slice(0, 300) };
        throw new ApiError(response.status, problem, method, path);
      }
      return withHeaders ? { body: decoded, headers: response.headers } : decoded;
    }
  }

  delay(attempt, retryAfter) {
    let ms = Math.min(this.maxBackoffMs, this.backoffMs * 2 ** attempt) * (0.5 + Math.random() / 2);
    const seconds = Number(retryAfter);
    if (retryAfter && Number.isFinite(seconds)) ms = Math.max(ms, Math.min(seconds * 1000, this.maxBackoffMs * 6));
    return ms;
  }

  // --- the service ---
  /** `{status: "ok" | "degraded", redis, refusing_writes}`: is the service up and its store writable. */
  health() { return this.request("GET", "/api/health"); }

  // --- games and tables ---
  games() { return this.request("GET", "/api/games"); }
  /** One game, with its full rules as Markdown (`rules`). */
  game(gameId) { return this.request("GET", `/api/games/${gameId}`); }
  /** The game's JSON Schema document (its view, what `choose` receives, and its moves). */
  gameSchema(gameId) { return this.request("GET", `/api/games/${gameId}/schema`); }
  /** The most recent tables, newest first. */
  tables(limit = 50) { return this.request("GET", "/api/tables", { params: { limit } }); }
  /** @param {string} game @param {string[]} seats "open", a house bot name or "bot:<bot id>" (a registered
   * bot that accepts challenges, or one `token` manages) @param {object} [options] @param {string} [token] */
  createTable(game, seats, options = {}, token = null) {
    return this.request("POST", "/api/tables", { body: { game, seats, options }, token });
  }
  table(tableId) { return this.request("GET", `/api/tables/${tableId}`); }
  /** The replay record of a finished table (409 while it is playing). */
  replay(tableId) { return this.request("GET", `/api/tables/${tableId}/replay`); }
  join(tableId, seat) { return this.request("POST", `/api/tables/${tableId}/seats/${seat}/join`); }
  /** The seat's state; with `after` and `wait` (s) a long-poll until the version exceeds `after`. */
  seatState(tableId, seat, token, after = null, wait = 0) {
    const w = Math.min(Math.max(wait, 0), 30);
    const params = { after, wait: after !== null && w > 0 ? w : null };
    return this.request("GET", `/api/tables/${tableId}/seats/${seat}`,
      { params, token, timeoutMs: Math.max(this.timeoutMs, (w + 10) * 1000) });
  }
  move(tableId, seat, token, move, expectedVersion) {
    return this.request("POST", `/api/tables/${tableId}/seats/${seat}/moves`,
      { body: { move, expected_version: expectedVersion }, token });
  }

  // --- bots and the arena ---
  /**
   * Register a bot: with a URL the arena calls, or none for a polling bot. With an account's API `key` the
   * bot belongs to the account and the key manages it; without one, keep the answer's owner token.
   */
  registerBot(name, games, url = null, key = null) {
    const body = { name, games };
    if (url) body.url = url;
    return this.request("POST", "/api/bots", { body, token: key });
  }
  /** The registered bots (of one game with `game`). */
  bots(game = null) { return this.request("GET", "/api/bots", { params: { game } }); }
  /** Change `games`, `url` or `enabled`; `token` is the bot's owner token or its account's key. */
  updateBot(botId, token, changes) { return this.request("PATCH", `/api/bots/${botId}`, { body: changes, token }); }
  /** Delete the bot; `token` is the bot's owner token or its account's key. */
  deleteBot(botId, token) { return this.request("DELETE", `/api/bots/${botId}`, { token }); }

  // --- accounts ---
  /** Open an account: the answer's `api_key` is shown this once. Never retried. */
  createAccount() { return this.request("POST", "/api/accounts", { retry: false }); }
  account(key) { return this.request("GET", "/api/account", { token: key }); }
  /** The bots of the key's account, oldest first. */
  accountBots(key) { return this.request("GET", "/api/account/bots", { token: key }); }
  /** Move a bot registered without an account into the key's account; its owner token stops working. */
  adoptBot(botId, key, ownerToken) {
    return this.request("POST", `/api/account/bots/${botId}/adopt`, { body: { owner_token: ownerToken }, token: key });
  }
  /** A new API key (in the answer, this once); `key` stops working. Never retried. */
  rotateKey(key) { return this.request("POST", "/api/account/keys/rotate", { token: key, retry: false }); }
  /** `key` stops working; no key works for the account until the operator issues one. Its bots stay. */
  revokeKey(key) { return this.request("DELETE", "/api/account/key", { token: key }); }
  bot(botId) { return this.request("GET", `/api/bots/${botId}`); }
  /** A polling bot's ladder seats; with `version` the bot declares its version (its matches are rated under it). */
  ladderSeats(botId, ownerToken, version = null) {
    return this.request("GET", `/api/bots/${botId}/ladder-seats`, { token: ownerToken, params: { version } });
  }
  /**
   * The ladder seats and their version (`X-Seats-Version`); with `after` (the version answered last time)
   * and `waitS`, a long-poll held until the seats change. Holding it keeps the bot present.
   * @returns {Promise<{seats: object[], version: number}>}
   */
  async watchLadderSeats(botId, ownerToken, { after = null, waitS = 0, version = null } = {}) {
    const wait = after !== null && waitS > 0 ? Math.min(waitS, 30) : null;
    const { body, headers } = await this.request("GET", `/api/bots/${botId}/ladder-seats`, {
      token: ownerToken, params: { after, wait, version }, withHeaders: true,
      timeoutMs: Math.max(this.timeoutMs, ((wait || 0) + 10) * 1000),
    });
    return { seats: body, version: Number(headers.get("x-seats-version") || 0) };
  }
  /**
   * A bot's own record on a ladder (its only one when `ladder` is omitted): its finished matches, newest first,
   * with its strikes; a page `{matches, next_cursor, next}` (pass `next_cursor` as `cursor` until it is null).
   */
  botMatches(botId, { ladder = null, limit = null, cursor = null } = {}) {
    return this.request("GET", `/api/bots/${botId}/matches`, { params: { ladder, limit, cursor } });
  }
  /**
   * Every finished match of the bot (ladder matches and challenges), oldest first, each with its replay records:
   * an async iterator over the lines of `GET /api/bots/{bot_id}/export`, decoded, page after page to the end.
   * `since` (a unix time) starts after it; `cursor` (a line's `cursor`) goes on after that match.
   * @returns {AsyncGenerator<object>}
   */
  exportMatches(botId, { since = null, cursor = null, limit = 100 } = {}) {
    return require("./export").exportMatches(this, botId, { since, cursor, limit });
  }
  /** The same matches as the JSON text of each line, as the service sent it (for writing to a file). */
  exportLines(botId, { since = null, cursor = null, limit = 100 } = {}) {
    return require("./export").exportLines(this, botId, { since, cursor, limit });
  }
  ladders() { return this.request("GET", "/api/ladders"); }
  /** One page of the ladder's ranking (100 rows by default, at most 500); follow `next` until it is null. */
  ranking(ladderId, { limit = null, offset = null } = {}) {
    return this.request("GET", `/api/ladders/${ladderId}`, { params: { limit, offset } });
  }
  /** A bot's rating after each of its rated matches on the ladder, newest first. */
  botHistory(ladderId, botId) { return this.request("GET", `/api/ladders/${ladderId}/bots/${botId}/history`); }
  /** The ladder's most recent finished matches, newest first. */
  async recentMatches(ladderId) { return (await this.request("GET", `/api/ladders/${ladderId}/matches`)).matches; }
  match(matchId) { return this.request("GET", `/api/matches/${matchId}`); }
  /** The public table of the game a match is playing now (no hands, no seed); poll it. */
  liveMatch(matchId) { return this.request("GET", `/api/matches/${matchId}/live`); }
  matchReplay(matchId, gameNo = 0) { return this.request("GET", `/api/matches/${matchId}/games/${gameNo}/replay`); }
  /**
   * Every decision of your bot in a finished match (its owner token or account key): per decision the request it
   * was sent, its raw answer, `latency_ms`, `outcome` ("ok" or the failure that struck it), `detail` and the `move`
   * the game took (`fallback` when the arena played it); `game` for one game only.
   */
  decisions(matchId, botId, token, { game = null } = {}) {
    return this.request("GET", `/api/matches/${matchId}/bots/${botId}/decisions`, { params: { game }, token });
  }

  // --- analysis of a finished game ---
  /**
   * Ask for the analysis of `seat` in a finished game (a match's `gameNo`, or a table): the state
   * `{status, progress: {done, total}, result?, reason?, url}`; poll `analysis` (same arguments) until `status`
   * is "done" or "failed". Asking again joins the same analysis.
   * @param {{matchId?: string, gameNo?: number, tableId?: string, budgetMs?: number}} where
   */
  requestAnalysis(seat, where) {
    return this.request("POST", analysisPath(where), { params: { seat, budget_ms: where.budgetMs } });
  }
  /** The state of an analysis asked for with `requestAnalysis` (the same arguments). */
  analysis(seat, where) {
    return this.request("GET", analysisPath(where), { params: { seat, budget_ms: where.budgetMs } });
  }

  // Challenge: one unrated match between `bots` (bot ids or house bot names, seat order of game 0); `token`
  // is the owner token of one of them (or its account's key), the others yours or accepting challenges.
  // Never retried: a lost answer's challenge would still be played, and counted against your quota.
  challenge(token, game, bots, { games = null, duplicate = null, options = {} } = {}) {
    const body = { game, bots, options };
    if (games !== null) body.games = games;
    if (duplicate !== null) body.duplicate = duplicate;
    return this.request("POST", "/api/challenges", { body, token, retry: false });
  }

  // A challenge and its match: poll until `status` is "played" or "aborted".
  getChallenge(challengeId) { return this.request("GET", `/api/challenges/${challengeId}`); }
  // A round-robin or Swiss event of `bots`; `key` is your account's API key (or the operator's token).
  // `fields`: rounds (swiss), meetings, players, name, options, max_tables, entry, starts_at, field_limit.
  // Never retried: a lost answer's event would still run, and count against your quota.
  createTournament(key, game, format, bots, fields = {}) {
    return this.request("POST", "/api/tournaments", { body: { game, format, bots, ...fields }, token: key,
      retry: false });
  }

  // The event: its field, each round's tables (places once the round is over) and the standings.
  tournament(tournamentId) { return this.request("GET", `/api/tournaments/${tournamentId}`); }
  tournamentStandings(tournamentId) { return this.request("GET", `/api/tournaments/${tournamentId}/standings`); }
  // Enter your bot in an open event before its start (its owner token or account key).
  enterTournament(tournamentId, botId, token) {
    return this.request("POST", `/api/tournaments/${tournamentId}/entries`, { body: { bot: botId }, token,
      retry: false });
  }
  get(path, params = {}) { return this.request("GET", path, { params }); }
}

function analysisPath({ matchId = null, gameNo = 0, tableId = null } = {}) {
  if ((matchId === null) === (tableId === null)) throw new Error("give exactly one of matchId (with gameNo) and tableId");
  return matchId !== null ? `/api/matches/${matchId}/games/${gameNo}/analysis` : `/api/tables/${tableId}/analysis`;
}

module.exports = { ApiError, ApiUnavailable, ArenaClient, ENDPOINTS, sleep };

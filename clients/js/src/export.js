"use strict";
/**
 * A bot's export, `GET /api/bots/{bot_id}/export`: every finished match of the bot, oldest first, one JSON
 * line each (NDJSON) with its replay records, read line by line as the answer arrives and page after page
 * (`Link: rel="next"`). An answer cut off in the middle is asked for again from its last whole line's
 * `cursor`, up to the client's retries.
 * @module trickarena/export
 */
const { ApiError, ApiUnavailable, sleep } = require("./http");

const EXPORT_PAGE = 100; // matches per answer: the service's most
const RETRY_STATUSES = new Set([429, 500, 502, 503, 504, 507]); // as every other request of the client
const CURSOR_HEAD = '{"cursor":"';

/** The `cursor` of a line, which the service writes first: read without decoding the whole line. */
function lineCursor(line) {
  if (!line.startsWith(CURSOR_HEAD)) return JSON.parse(line).cursor;
  return line.slice(CURSOR_HEAD.length, line.indexOf('"', CURSOR_HEAD.length));
}

/** The non-empty lines of a response body as they arrive; a last line without its newline is a cut-off. */
async function* readLines(body) {
  const decoder = new TextDecoder();
  let buffered = "";
  for await (const chunk of body) {
    buffered += decoder.decode(chunk, { stream: true });
    let start = 0;
    for (let end = buffered.indexOf("\n"); end >= 0; end = buffered.indexOf("\n", start)) {
      const line = buffered.slice(start, end).replace(/\r$/, "");
      start = end + 1;
      if (line) yield line;
    }
    buffered = buffered.slice(start);
  }
  buffered += decoder.decode();
  if (buffered.trim()) throw new Error("the answer was cut off in the middle of a line");
}

/**
 * Open one page: the Response once it starts (retried like `client.request` until then), with a timer that
 * aborts it when no byte arrives for the client's timeout.
 */
async function openPage(client, path, params) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null) query.set(key, String(value));
  }
  const url = `${client.baseUrl}${path}?${query}`;
  for (let attempt = 0; ; attempt += 1) {
    const controller = new AbortController();
    let timer = null;
    const idle = () => {
      clearTimeout(timer);
      timer = setTimeout(() => controller.abort(new Error("timed out")), client.timeoutMs);
    };
    const cancel = () => controller.abort(client.signal.reason);
    if (client.signal) client.signal.addEventListener("abort", cancel, { once: true });
    const done = () => {
      clearTimeout(timer);
      if (client.signal) client.signal.removeEventListener("abort", cancel);
    };
    let response;
    try {
      idle();
      response = await fetch(url, {
        headers: { Accept: "application/x-ndjson", "User-Agent": "trickarena-js/0.1" }, signal: controller.signal,
      });
    } catch (error) {
      done();
      if (client.signal && client.signal.aborted) throw error;
      if (attempt >= client.retries) throw new ApiUnavailable(`GET ${url}: ${error.cause || error}`);
      await sleep(client.delay(attempt, null), client.signal);
      continue;
    }
    if (response.status >= 400) {
      const raw = await response.text().finally(done);
      if (RETRY_STATUSES.has(response.status) && attempt < client.retries) {
        await sleep(client.delay(attempt, response.headers.get("retry-after")), client.signal);
        continue;
      }
      let problem;
      try {
        problem = JSON.parse(raw);
      } catch {
        problem = { type: "about:blank", title: "Not JSON", status: response.status, detail: raw.slice(0, 300) };
      }
      throw new ApiError(response.status, problem, "GET", path);
    }
    return { response, idle, done };
  }
}

/**
 * Every finished match of the bot as the JSON text of its line (no newline), as the service sent it.
 * @param {import("./http").ArenaClient} client
 * @param {string} botId
 * @param {{since?: number|null, cursor?: string|null, limit?: number}} [options]
 */
async function* exportLines(client, botId, { since = null, cursor = null, limit = EXPORT_PAGE } = {}) {
  const path = `/api/bots/${encodeURIComponent(botId)}/export`;
  let params = { since, cursor, limit };
  let failures = 0;
  for (;;) {
    const { response, idle, done } = await openPage(client, path, params);
    const more = /rel="next"/.test(response.headers.get("link") || "");
    try {
      for await (const line of readLines(response.body)) {
        idle();
        params = { cursor: lineCursor(line), limit };
        failures = 0;
        yield line;
      }
    } catch (error) {
      if (client.signal && client.signal.aborted) throw error;
      failures += 1;
      if (failures > client.retries) throw new ApiUnavailable(`GET ${path}: ${error.cause || error}`);
      await sleep(client.delay(failures - 1, null), client.signal);
      continue;
    } finally {
      done();
    }
    if (!more) return;
  }
}

/** The same matches, each line decoded. */
async function* exportMatches(client, botId, options = {}) {
  for await (const line of exportLines(client, botId, options)) yield JSON.parse(line);
}

module.exports = { EXPORT_PAGE, exportLines, exportMatches, lineCursor, readLines };

"use strict";
/**
 * Serve a bot over HTTP, speaking the arena's bot protocol v1 (docs/bot-protocol.md): GET / -> info,
 * POST /move -> {"move": ...}, POST /start and /end -> {} (notifications). HTTP/1.1 keep-alive (the arena
 * keeps one connection per bot) and TCP_NODELAY on every accepted socket. A `choose` that throws answers
 * 500 with the error text: the arena records a strike and plays its fallback; the server keeps serving.
 * @module trickarena/server
 */
const http = require("node:http");

const MAX_REQUEST_BYTES = 1024 * 1024;

/** The answer to the arena's GET / (name, author, version, games). */
function botInfo(bot) {
  return {
    name: bot.name || "my-bot", author: bot.author || "anonymous", version: String(bot.version ?? "1"),
    games: bot.games || ["sore-spot", "card-commons", "sloppy-seconds", "spot-hearts"],
  };
}

/**
 * Create (not yet listening) an HTTP server for `bot`. Decisions run one at a time unless
 * `bot.concurrent` is true, so a bot may keep state between calls without thinking about interleaving.
 * @param {import("../index").Bot} bot
 * @returns {http.Server & {calls: number}}
 */
function createBotServer(bot) {
  let queue = Promise.resolve();
  const decide = (view) => {
    if (bot.concurrent) return Promise.resolve().then(() => bot.choose(view));
    const next = queue.then(() => bot.choose(view));
    queue = next.catch(() => {});
    return next;
  };
  const server = http.createServer({ keepAlive: true }, (req, res) => {
    const answer = (status, body) => {
      const raw = JSON.stringify(body);
      res.writeHead(status, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(raw) });
      res.end(raw);
    };
    const route = req.url.split("?")[0].replace(/\/+$/, "");
    if (req.method === "GET") {
      if (route === "" || route === "/info") answer(200, botInfo(bot));
      else answer(404, { error: `no route ${req.url}` });
      return;
    }
    if (req.method !== "POST") {
      answer(405, { error: `method ${req.method} not allowed` });
      return;
    }
    const chunks = [];
    let size = 0;
    req.on("data", (chunk) => {
      size += chunk.length;
      if (size <= MAX_REQUEST_BYTES) chunks.push(chunk);
    });
    req.on("end", async () => {
      if (size > MAX_REQUEST_BYTES) {
        res.setHeader("Connection", "close");
        answer(413, { error: "request too large" });
        return;
      }
      let payload;
      try {
        payload = size ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : {};
      } catch {
        answer(400, { error: "the body is not JSON" });
        return;
      }
      try {
        if (route === "/move") {
          const move = await decide(payload.view);
          server.calls += 1;
          answer(200, { move });
        } else if (route === "/start" || route === "/end") {
          const hook = route === "/start" ? bot.onStart : bot.onEnd;
          if (hook) await hook.call(bot, payload);
          answer(200, {});
        } else {
          answer(404, { error: `no route ${req.url}` });
        }
      } catch (error) {
        console.warn(`bot error on ${route}: ${error && error.stack ? error.stack : error}`);
        answer(500, { error: `${(error && error.name) || "Error"}: ${(error && error.message) || error}` });
      }
    });
  });
  server.calls = 0;
  server.on("connection", (socket) => socket.setNoDelay(true));
  server.keepAliveTimeout = 65000;
  return server;
}

/**
 * Serve `bot` on host:port until SIGINT/SIGTERM; resolves with the listening server.
 * @returns {Promise<http.Server & {calls: number, url: string}>}
 */
function serve(bot, { host = "127.0.0.1", port = 9001 } = {}) {
  const server = createBotServer(bot);
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      const address = server.address();
      server.url = `http://${host === "0.0.0.0" ? "127.0.0.1" : host}:${address.port}`;
      resolve(server);
    });
  });
}

module.exports = { botInfo, createBotServer, serve };

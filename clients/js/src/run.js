"use strict";
/**
 * run(bot): the command line every bot gets, the same as the Python SDK's:
 *
 *   node my_bot.js serve [--host 127.0.0.1] [--port 9001]                   # HTTP bot (protocol v1)
 *   node my_bot.js practice [--api URL] [--game G] [--opponents heuristic,random,random] [--options JSON]
 *   node my_bot.js ladder --bot-id ID --token OWNER_TOKEN [--api URL]        # polling bot on the ladder
 *
 * SIGINT (Ctrl-C) and SIGTERM stop it cleanly (exit 0).
 * @module trickarena/run
 */
const { parseArgs } = require("node:util");
const { withValuesJoined } = require("./args");
const { ArenaClient } = require("./http");
const { practice } = require("./poll");
const { playLadder } = require("./ladder");
const { botInfo, serve } = require("./server");

const DEFAULT_API = "http://127.0.0.1:8000";
const COMMANDS = {
  serve: { host: { type: "string", default: "127.0.0.1" }, port: { type: "string", default: "9001" } },
  practice: {
    api: { type: "string", default: DEFAULT_API }, game: { type: "string" },
    opponents: { type: "string", default: "heuristic,heuristic,heuristic" },
    options: { type: "string", default: "{}" },
  },
  ladder: { api: { type: "string", default: DEFAULT_API }, "bot-id": { type: "string" }, token: { type: "string" } },
};

function usage(name) {
  return `usage: node ${name} serve [--host H] [--port P]\n`
    + `       node ${name} practice [--api URL] [--game G] [--opponents heuristic,random,random] [--options JSON]\n`
    + `       node ${name} ladder --bot-id ID --token OWNER_TOKEN [--api URL]`;
}

/** Resolve on the first SIGINT or SIGTERM (process managers stop with SIGTERM). */
function stopSignal() {
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  return controller.signal;
}

/**
 * Parse the command line and run the bot; resolves with the exit code (and exits with it when `exit`).
 * @param {import("../index").Bot} bot
 * @param {string[]} [argv] default: process.argv.slice(2)
 */
async function run(bot, argv = process.argv.slice(2), { exit = true } = {}) {
  const code = await main(bot, argv);
  if (exit) process.exit(code);
  return code;
}

async function main(bot, argv) {
  const info = botInfo(bot);
  const name = require("node:path").basename(process.argv[1] || "my_bot.js");
  const [command, ...rest] = argv;
  if (!COMMANDS[command]) {
    console.error(usage(name));
    return 2;
  }
  let values;
  try {
    ({ values } = parseArgs({ args: withValuesJoined(rest, COMMANDS[command]), options: COMMANDS[command],
      strict: true }));
  } catch (error) {
    console.error(`${error.message}\n${usage(name)}`);
    return 2;
  }
  const signal = stopSignal();
  if (command === "serve") {
    const port = Number(values.port);
    if (!/^\d+$/.test(values.port) || port > 65535) {
      console.error(`--port ${values.port} is not a port (0-65535)\n${usage(name)}`);
      return 2;
    }
    let server;
    try {
      server = await serve(bot, { host: values.host, port: Number(values.port) });
    } catch (error) {
      console.error(`cannot listen on ${values.host}:${values.port}: ${error.message}`);
      return 1;
    }
    console.log(`bot '${info.name}' listening on ${server.url}  (Ctrl-C stops)`);
    await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
    server.closeAllConnections?.();
    await new Promise((resolve) => server.close(resolve));
    console.log("stopped");
    return 0;
  }
  if (command === "ladder") {
    if (!values["bot-id"] || !values.token) {
      console.error(`ladder needs --bot-id and --token\n${usage(name)}`);
      return 2;
    }
    console.log(`bot '${info.name}' (${values["bot-id"]}) playing its ladder seats at ${values.api}  (Ctrl-C stops)`);
    try {
      const games = await playLadder(values.api, values["bot-id"], values.token, bot,
        { signal, log: (line) => console.log(line) });
      console.log(`stopped after ${games} games`);
      return 0;
    } catch (error) {
      // A wrong bot id or token is the user's to fix: one line, exit 1, no stack.
      console.error(String(error.message || error).replace(/\s+/g, " "));
      return 1;
    }
  }
  const api = new ArenaClient(values.api, { signal });
  try {
    const options = JSON.parse(values.options);
    const { tableId, final } = await practice(api, bot, values.game || info.games[0], values.opponents.split(","),
      options);
    console.log(`table ${tableId} over: totals ${JSON.stringify(final.view.scores)}, `
      + `winners ${JSON.stringify(final.view.winners)}`);
    return 0;
  } catch (error) {
    if (signal.aborted) {
      console.log("stopped");
      return 0;
    }
    console.error(String(error.message || error));
    return 1;
  }
}

module.exports = { COMMANDS, run };

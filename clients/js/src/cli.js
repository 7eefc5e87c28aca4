"use strict";
/**
 * `npx trickarena …`: the bot author's command line in JavaScript, with the same commands and options as the
 * Python `trick-arena` (docs/cli.md) where they overlap, so a JavaScript author needs no Python:
 *
 *   trickarena account create [--print-key] | show | bots | adopt BOT_ID --token T | rotate [--print-key]
 *              | revoke [--yes]                                         your account and its API key
 *   trickarena games                                                    the games and their options
 *   trickarena register NAME --game G [--game G2] [--url URL] [--no-account]   register a bot
 *   trickarena update BOT_ID [--game G] [--url URL] [--enable|--disable] [--accept-challenges|--refuse-challenges]
 *                    [--token T]                                              change one of your bots
 *   trickarena delete BOT_ID [--token T]                                delete one of your bots
 *   trickarena record BOT_ID [--ladder L] [--limit N] [--cursor C]      a bot's finished matches, newest first
 *   trickarena verify-deals FILE|URL ...                                re-deal a table's rounds from its seed
 *
 * Every command takes `--api URL` ($TRICK_ARENA_API, default http://127.0.0.1:8000) and `--key-file PATH`
 * ($TRICK_ARENA_KEY_FILE, default ~/.config/trick-arena/key); the account key is $TRICK_ARENA_KEY when set,
 * else the key file's contents (the same file the Python command line reads and writes). Exit 0 on success,
 * 1 when the API refuses or cannot be reached (one line saying why), 2 on a usage error.
 * @module trickarena/cli
 */
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { parseArgs } = require("node:util");
const { withValuesJoined } = require("./args");
const { ApiError, ApiUnavailable, ArenaClient } = require("./http");

const DEFAULT_API = "http://127.0.0.1:8000";
const KEY_ENV = "TRICK_ARENA_KEY";
const KEY_FILE_ENV = "TRICK_ARENA_KEY_FILE";

/** Options every command takes (the Python command line's group options). */
const GLOBAL_OPTIONS = { api: { type: "string" }, "key-file": { type: "string" }, help: { type: "boolean", short: "h" } };

/**
 * Each command: its options (node:util parseArgs), positional arguments (name → required) and usage line.
 * tests/clients/test_sdk_parity.py compares these option sets with the Python command line's.
 */
const COMMANDS = {
  games: { options: {}, args: [], usage: "games" },
  register: {
    options: { game: { type: "string", multiple: true }, url: { type: "string" }, "no-account": { type: "boolean" } },
    args: ["NAME"], usage: "register NAME --game G [--game G2] [--url URL] [--no-account]",
  },
  update: {
    options: {
      game: { type: "string", multiple: true }, url: { type: "string" }, enable: { type: "boolean" },
      disable: { type: "boolean" }, token: { type: "string" }, "accept-challenges": { type: "boolean" },
      "refuse-challenges": { type: "boolean" },
    },
    args: ["BOT_ID"],
    usage: "update BOT_ID [--game G] [--url URL] [--enable|--disable] [--accept-challenges|--refuse-challenges] " +
      "[--token OWNER_TOKEN]",
  },
  delete: { options: { token: { type: "string" } }, args: ["BOT_ID"], usage: "delete BOT_ID [--token OWNER_TOKEN]" },
  record: {
    options: { ladder: { type: "string" }, limit: { type: "string" }, cursor: { type: "string" } },
    args: ["BOT_ID"], usage: "record BOT_ID [--ladder L] [--limit N] [--cursor C]",
  },
  "account create": { options: { "print-key": { type: "boolean" } }, args: [], usage: "account create [--print-key]" },
  "account show": { options: {}, args: [], usage: "account show" },
  "account bots": { options: {}, args: [], usage: "account bots" },
  "account adopt": {
    options: { token: { type: "string" }, "owner-token": { type: "string" } }, args: ["BOT_ID"],
    usage: "account adopt BOT_ID --token T",
  },
  "account rotate": { options: { "print-key": { type: "boolean" } }, args: [], usage: "account rotate [--print-key]" },
  "account revoke": { options: { yes: { type: "boolean" } }, args: [], usage: "account revoke --yes" },
  "verify-deals": { options: {}, args: ["FILE|URL"], variadic: true, usage: "verify-deals FILE|URL [FILE|URL ...]" },
};

/** A one-line refusal: printed as is, exit status `code`. */
class CliError extends Error {
  constructor(message, code = 1) {
    super(message);
    this.code = code;
  }
}

function usage() {
  return `usage: trickarena COMMAND [--api URL] [--key-file PATH] ...\n${
    Object.values(COMMANDS).map((c) => `  trickarena ${c.usage}`).join("\n")}`;
}

/** The key file's path: --key-file, else $TRICK_ARENA_KEY_FILE, else $XDG_CONFIG_HOME/trick-arena/key. */
function keyFilePath(given, env = process.env) {
  if (given) return given;
  if (env[KEY_FILE_ENV]) return env[KEY_FILE_ENV];
  return path.join(env.XDG_CONFIG_HOME || path.join(os.homedir(), ".config"), "trick-arena", "key");
}

/** The account key and where it came from: $TRICK_ARENA_KEY, else the key file; {key: null} without one. */
function readKey(file, env = process.env) {
  const fromEnv = (env[KEY_ENV] || "").trim();
  if (fromEnv) return { key: fromEnv, source: `$${KEY_ENV}` };
  let text;
  try {
    text = fs.readFileSync(file, "utf8").trim();
  } catch (error) {
    if (error.code === "ENOENT") return { key: null, source: "" };
    throw new CliError(`cannot read the key file ${file}: ${error.message}`);
  }
  return { key: text || null, source: file };
}

/** Write the key readable and writable by its owner alone (mode 0600; its directory 0700). */
function writeKey(file, key) {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  fs.writeFileSync(file, `${key}\n`, { mode: 0o600 });
  fs.chmodSync(file, 0o600); // an existing file keeps its old mode through writeFileSync
}

/** Split argv into the command's name ("account create" for a subcommand), its options and arguments. */
function parseCommand(argv) {
  let name = argv[0];
  let rest = argv.slice(1);
  if (name === "account") {
    name = `account ${argv[1] || ""}`.trim();
    rest = argv.slice(2);
  }
  const command = COMMANDS[name];
  if (!command) throw new CliError(name ? `no command '${name}'\n${usage()}` : usage(), 2);
  let parsed;
  try {
    const options = { ...GLOBAL_OPTIONS, ...command.options };
    parsed = parseArgs({ args: withValuesJoined(rest, options), options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new CliError(`${error.message}\nusage: trickarena ${command.usage}`, 2);
  }
  const { values, positionals } = parsed;
  if (values.help) return { name, command, values, positionals, help: true };
  const wanted = command.args.length;
  if (positionals.length < wanted || (!command.variadic && positionals.length > wanted)) {
    throw new CliError(`${name} takes ${command.variadic ? "at least " : ""}${wanted} argument(s): `
      + `${command.args.join(" ") || "none"}\nusage: trickarena ${command.usage}`, 2);
  }
  return { name, command, values, positionals, help: false };
}

function integer(value, option) {
  if (value === undefined) return null;
  if (!/^\d+$/.test(value)) throw new CliError(`--${option} takes a whole number, not '${value}'`, 2);
  return Number(value);
}

/** The context of one run: API client, key file, the key (environment first), output. */
function context(values, env, out) {
  const apiUrl = values.api || env.TRICK_ARENA_API || DEFAULT_API;
  let api;
  try {
    api = new ArenaClient(apiUrl, { retries: 3 });
  } catch (error) {
    throw new CliError(`--api: ${error.message}`, 2);
  }
  const keyFile = keyFilePath(values["key-file"], env);
  const accountKey = () => {
    const { key } = readKey(keyFile, env);
    if (!key) {
      throw new CliError(`no account key: set $${KEY_ENV}, or open an account with \`trickarena account create\``
        + ` (it saves the key to ${keyFile})`);
    }
    return key;
  };
  return { api, apiUrl, keyFile, accountKey, env, out };
}

function handOver(ctx, created, printKey) {
  if (printKey) {
    ctx.out(`API key (shown once, not saved: keep it secret, e.g. in $${KEY_ENV}): ${created.api_key}`);
    return;
  }
  writeKey(ctx.keyFile, created.api_key);
  ctx.out(`API key saved to ${ctx.keyFile} (mode 0600); it is not shown`);
}

function botLine(bot) {
  return `${bot.name} (${bot.bot_id}): ${bot.games.join(", ")}, ${bot.url || "(polling)"}, `
    + `${bot.enabled ? "enabled" : "disabled"}`;
}

const HANDLERS = {
  async games(ctx) {
    for (const game of await ctx.api.games()) {
      const options = Object.entries(game.defaults).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(", ");
      ctx.out(`${game.id}  ${game.name}  ${game.min_players}-${game.max_players} players  ${options}`);
    }
  },
  async register(ctx, values, [name]) {
    if (!values.game || !values.game.length) throw new CliError("register needs --game (repeatable)", 2);
    const key = values["no-account"] ? null : readKey(ctx.keyFile, ctx.env).key;
    const bot = await ctx.api.registerBot(name, values.game, values.url || null, key);
    ctx.out(`registered ${bot.name} as ${bot.bot_id} for ${bot.games.join(", ")}`);
    if (bot.owner_token) ctx.out(`owner token (shown once): ${bot.owner_token}`);
    else ctx.out("in your account: your account key manages it");
    ctx.out(`it joins the matching ladders within a minute: ${ctx.apiUrl}/`);
  },
  async update(ctx, values, [botId]) {
    if (values.enable && values.disable) throw new CliError("give --enable or --disable, not both", 2);
    const changes = {};
    if (values.game && values.game.length) changes.games = values.game;
    if (values.url !== undefined) changes.url = values.url;
    if (values.enable || values.disable) changes.enabled = Boolean(values.enable);
    if (values["accept-challenges"] && values["refuse-challenges"]) {
      throw new CliError("give --accept-challenges or --refuse-challenges, not both", 2);
    }
    if (values["accept-challenges"] || values["refuse-challenges"]) {
      changes.accepts_challenges = Boolean(values["accept-challenges"]);
    }
    if (!Object.keys(changes).length) {
      throw new CliError("nothing to change: give --game, --url, --enable, --disable or --accept-challenges", 2);
    }
    ctx.out(botLine(await ctx.api.updateBot(botId, values.token || ctx.accountKey(), changes)));
  },
  async delete(ctx, values, [botId]) {
    await ctx.api.deleteBot(botId, values.token || ctx.accountKey());
    ctx.out(`deleted ${botId}`);
  },
  async record(ctx, values, [botId]) {
    const page = await ctx.api.botMatches(botId, { ladder: values.ladder || null,
      limit: integer(values.limit, "limit"), cursor: integer(values.cursor, "cursor") });
    ctx.out(`${botId} on ${page.ladder_id}: ${page.matches.length} match(es), newest first`);
    for (const m of page.matches) {
      const strikes = m.strikes.length ? `, ${m.strikes.length} strike(s): ${m.strikes.map((s) => s.reason).join(", ")}` : "";
      ctx.out(`${m.match}  ${new Date(m.at * 1000).toISOString()}  ${m.status}  place ${m.place}/${m.players}`
        + `${m.won ? " (won)" : ""}${m.forfeited ? " (forfeited)" : ""}  Elo ${m.rating.toFixed(0)} `
        + `(${m.delta >= 0 ? "+" : ""}${m.delta.toFixed(1)})${strikes}`);
    }
    if (page.next_cursor !== null && page.next_cursor !== undefined) {
      ctx.out(`more: trickarena record ${botId} --ladder ${page.ladder_id} --cursor ${page.next_cursor}`);
    }
  },
  async "account create"(ctx, values) {
    if (!values["print-key"] && fs.existsSync(ctx.keyFile)) {
      throw new CliError(`a key is already saved in ${ctx.keyFile}: move it away first (it may be your only copy `
        + "of another account's key), or use --print-key");
    }
    const created = await ctx.api.createAccount();
    ctx.out(`opened account ${created.account_id}`);
    handOver(ctx, created, values["print-key"]);
  },
  async "account show"(ctx) {
    const shown = await ctx.api.account(ctx.accountKey());
    ctx.out(`account ${shown.account_id}${shown.disabled ? " (disabled)" : ""}: ${shown.bots} of `
      + `${shown.quotas.bots} bots, at most ${shown.quotas.bots_per_ladder} per ladder`);
  },
  async "account bots"(ctx) {
    for (const bot of await ctx.api.accountBots(ctx.accountKey())) ctx.out(botLine(bot));
  },
  async "account adopt"(ctx, values, [botId]) {
    const ownerToken = values.token || values["owner-token"];  // --owner-token: the same, its older name
    if (!ownerToken) throw new CliError("account adopt needs --token (the bot's owner token)", 2);
    const bot = await ctx.api.adoptBot(botId, ctx.accountKey(), ownerToken);
    ctx.out(`${bot.name} (${bot.bot_id}) is in your account now; its owner token no longer works`);
  },
  async "account rotate"(ctx, values) {
    const rotated = await ctx.api.rotateKey(ctx.accountKey());
    ctx.out(`new key for account ${rotated.account_id}; the old key no longer works`);
    handOver(ctx, rotated, values["print-key"]);
  },
  async "account revoke"(ctx, values) {
    const key = ctx.accountKey();
    if (!values.yes) throw new CliError("no key will work for this account until the operator issues one: "
      + "confirm with --yes", 2);
    await ctx.api.revokeKey(key);
    if (readKey(ctx.keyFile, {}).source === ctx.keyFile && !(ctx.env[KEY_ENV] || "").trim()) {
      fs.unlinkSync(ctx.keyFile);
      ctx.out(`key revoked and ${ctx.keyFile} removed`);
    } else {
      ctx.out(`key revoked; unset $${KEY_ENV}`);
    }
  },
};

/**
 * Run one command line; resolves with the exit code. `out`/`err` print a line each.
 * @param {string[]} argv e.g. ["register", "my-bot", "--game", "spot-hearts", "--url", "http://..."]
 */
async function main(argv, { env = process.env, out = console.log, err = console.error } = {}) {
  try {
    const { name, command, values, positionals, help } = parseCommand(argv);
    if (help) {
      out(`usage: trickarena ${command.usage}`);
      return 0;
    }
    if (name === "verify-deals") return await require("./verify").verifyDeals(positionals, out, err);
    await HANDLERS[name](context(values, env, out), values, positionals);
    return 0;
  } catch (error) {
    if (error instanceof CliError) {
      err(error.message);
      return error.code;
    }
    if (error instanceof ApiError) {
      err(`API error ${error.status} ${error.problem.title || ""}: ${error.problem.detail || ""}`);
      if (error.legal) err(`legal moves: ${error.legal.join(" ")}`);
      return 1;
    }
    if (error instanceof ApiUnavailable) {
      err(`cannot reach the API: ${error.message} (is the service running? --api URL?)`);
      return 1;
    }
    err(`error: ${(error && error.message) || error}`);
    return 1;
  }
}

module.exports = { COMMANDS, GLOBAL_OPTIONS, KEY_ENV, KEY_FILE_ENV, keyFilePath, main, readKey, writeKey };

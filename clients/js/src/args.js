"use strict";
/**
 * Command-line arguments for node:util parseArgs, shared by `trickarena` and a bot's own command line.
 * @module trickarena/args
 */

/**
 * `--token X` as `--token=X` for every option that takes a value: an owner token (or any value) may start
 * with "-", which parseArgs would take for an option and refuse.
 * @param {string[]} args
 * @param {Object<string, {type: string}>} options
 * @returns {string[]}
 */
function withValuesJoined(args, options) {
  const out = [];
  for (let i = 0; i < args.length; i++) {
    const name = args[i].startsWith("--") && !args[i].includes("=") ? args[i].slice(2) : null;
    if (name && options[name] && options[name].type === "string" && i + 1 < args.length) {
      out.push(`${args[i]}=${args[i + 1]}`);
      i++;
    } else {
      out.push(args[i]);
    }
  }
  return out;
}

module.exports = { withValuesJoined };

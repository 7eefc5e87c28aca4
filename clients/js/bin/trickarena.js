#!/usr/bin/env node
"use strict";
/**
 * trickarena COMMAND ...: the bot author's command line (account, games, register, update, delete, record,
 * verify-deals): src/cli.js has every command and its options.
 */
const { verifyDeals, readRecord } = require("../src/verify");

if (require.main === module) {
  require("../src/cli").main(process.argv.slice(2)).then((code) => process.exit(code));
}

module.exports = { verifyDeals, readRecord };

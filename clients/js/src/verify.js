"use strict";
/**
 * `trickarena verify-deals FILE|URL ...`: checks replay records from their contents alone, with the dealing
 * spec of docs/deals.md: the revealed seed against the commitment published when the table opened (when the
 * record carries it) and every deal against the seed. A URL may be a replay (…/replay) or a table
 * (/api/tables/{id}: its /replay is read). Exit 0 when every record verifies, 1 when one does not, 2 on a
 * usage or read error.
 * @module trickarena/verify
 */
const fs = require("node:fs");
const { verifyRecord } = require("./deals");

const USAGE = "usage: trickarena verify-deals FILE|URL [FILE|URL ...]   (a replay record: file, URL, or - for stdin)";

async function readRecord(source) {
  if (/^https?:\/\//.test(source)) {
    const url = new URL(source);
    if (/^\/api\/tables\/[^/]+\/?$/.test(url.pathname)) url.pathname = `${url.pathname.replace(/\/$/, "")}/replay`;
    const response = await fetch(url, { headers: { Accept: "application/json" } });
    const text = await response.text();
    if (!response.ok) throw new Error(`${url} -> ${response.status}: ${text.slice(0, 300)}`);
    return JSON.parse(text);
  }
  return JSON.parse(fs.readFileSync(source === "-" ? 0 : source, "utf8"));
}

async function verifyDeals(sources, out = console.log, err = console.error) {
  if (!sources.length) {
    err(USAGE);
    return 2;
  }
  let code = 0;
  for (const source of sources) {
    let record;
    try {
      record = await readRecord(source);
    } catch (error) {
      err(`${source}: cannot read a replay record: ${error.message}`);
      code = Math.max(code, 2);
      continue;
    }
    const result = verifyRecord(record);
    if (result.ok) {
      const commitment = result.commitment === "verified" ? "the seed opens the commitment"
        : "no commitment in the record (deals checked against the seed only)";
      out(`${source}: OK — ${result.rounds} round(s) dealt by seed ${record.seed} (dealing v2); ${commitment}`);
    } else {
      out(`${source}: FAILED`);
      for (const problem of result.problems) out(`  - ${problem}`);
      code = Math.max(code, 1);
    }
  }
  return code;
}

module.exports = { verifyDeals, readRecord };

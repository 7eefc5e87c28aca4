"use strict";
// Test helpers: the docs' test vectors, a scratch folder where `require("trickarena")` finds this package
// (as `npm install` would arrange), and child processes that are always stopped.
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { spawn } = require("node:child_process");

const SDK = path.resolve(__dirname, "..");
const REPO = path.resolve(SDK, "..", "..");

function docVectors() {
  const text = fs.readFileSync(path.join(REPO, "docs", "deals.md"), "utf8");
  const blocks = [...text.matchAll(/```json\n([\s\S]*?)```/g)];
  return JSON.parse(blocks[blocks.length - 1][1]);
}

/** A temporary folder with node_modules/trickarena -> this package, and the starters copied in. */
function scratch() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "trickarena-js-"));
  fs.mkdirSync(path.join(dir, "node_modules"));
  fs.symlinkSync(SDK, path.join(dir, "node_modules", "trickarena"), "dir");
  for (const name of fs.readdirSync(path.join(REPO, "clients", "examples"))) {
    if (name.endsWith(".js")) fs.copyFileSync(path.join(REPO, "clients", "examples", name), path.join(dir, name));
  }
  return dir;
}

/** Spawn node with `args` in `cwd`; resolves when `ready` matches a stdout line (with the match). */
function startNode(args, cwd, ready) {
  const child = spawn(process.execPath, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stderr.on("data", (d) => { err += d; });
  const matched = new Promise((resolve, reject) => {
    child.stdout.on("data", (d) => {
      out += d;
      const m = out.match(ready);
      if (m) resolve(m);
    });
    child.on("exit", (code) => reject(new Error(`exited ${code} before ready: ${out} ${err}`)));
  });
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  return { child, matched, exited, output: () => out, errors: () => err };
}

/** Run node to completion: {code, stdout, stderr}. */
function runNode(args, cwd, input) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => { stdout += d; });
    child.stderr.on("data", (d) => { stderr += d; });
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input || "");
  });
}

module.exports = { REPO, SDK, docVectors, runNode, scratch, startNode };

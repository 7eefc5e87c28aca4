/* A bot's decisions in a finished match, for its owner: asks the API with the owner token or API key typed
   on the page (kept in sessionStorage, this tab only), then draws a latency strip per game (one bar per
   decision: slow ones amber, failed ones red) and the details of the decision clicked. */
(function () {
  "use strict";
  var NS = "http://www.w3.org/2000/svg";
  var root = document.getElementById("decisions");
  if (!root) return;
  var api = root.getAttribute("data-api");
  var statusLine = document.getElementById("decisions-status");
  var KEY = "trick-arena-token";

  function el(name, attrs, text) {
    var node = document.createElement(name);
    for (var key in attrs || {}) node.setAttribute(key, attrs[key]);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function percentile(sorted, share) {
    if (!sorted.length) return null;
    return sorted[Math.min(sorted.length, Math.max(1, Math.ceil(share * sorted.length))) - 1];
  }

  function kindOf(d) {
    if (d.outcome !== "ok") return "failed";
    return d.latency_ms >= 0.8 * d.request.deadline_ms ? "slow" : "ok";
  }

  function moveText(move) { return Array.isArray(move) ? move.join(" ") : String(move); }

  function showDetail(d) {
    var box = document.getElementById("decision-detail");
    box.hidden = false;
    box.innerHTML = "";
    box.appendChild(el("h3", {}, "Game " + (d.game_no + 1) + ", move " + d.version + " (seat " + d.seat + ")"));
    var facts = el("dl", {"class": "facts"});
    [["outcome", d.outcome + (d.detail ? ": " + d.detail : "")], ["latency", d.latency_ms + " ms"],
     ["move played", moveText(d.move) + (d.fallback ? " (the fallback)" : "")],
     ["answer", d.answer === null ? "(none)" : d.answer],
     ["legal", d.request.legal.join(" ")], ["hand", (d.request.view.hand || []).join(" ")]
    ].forEach(function (pair) { facts.appendChild(el("dt", {}, pair[0])); facts.appendChild(el("dd", {}, pair[1])); });
    box.appendChild(facts);
    box.appendChild(el("h4", {}, "The request it was sent"));
    box.appendChild(el("pre", {"class": "request"}, JSON.stringify(d.request, null, 2)));
  }

  function strip(decisions) {
    var width = Math.max(decisions.length * 6, 120), height = 60;
    var svg = document.createElementNS(NS, "svg");
    svg.setAttribute("viewBox", "0 0 " + width + " " + height);
    svg.setAttribute("preserveAspectRatio", "none");
    svg.setAttribute("class", "latency-strip");
    var deadline = decisions.length ? decisions[0].request.deadline_ms : 1000;
    decisions.forEach(function (d, i) {
      var h = Math.max(6, Math.min(1, d.latency_ms / deadline) * height);  // height: share of the deadline
      var bar = document.createElementNS(NS, "rect");
      bar.setAttribute("x", i * 6); bar.setAttribute("y", height - h);
      bar.setAttribute("width", 5); bar.setAttribute("height", h);
      bar.setAttribute("class", "bar " + kindOf(d));
      bar.setAttribute("data-version", d.version);
      var title = document.createElementNS(NS, "title");
      title.textContent = "move " + d.version + ": " + d.latency_ms + " ms, " + d.outcome;
      bar.appendChild(title);
      bar.addEventListener("click", function () { showDetail(d); });
      svg.appendChild(bar);
    });
    return svg;
  }

  function draw(log) {
    var all = log.decisions, latencies = all.map(function (d) { return d.latency_ms; }).sort(function (a, b) { return a - b; });
    var failed = all.filter(function (d) { return d.outcome !== "ok"; });
    var summary = document.getElementById("decisions-summary");
    summary.innerHTML = "";
    summary.appendChild(el("p", {"id": "decisions-totals"}, all.length + " decisions, " + failed.length + " failed · latency p50 " +
      percentile(latencies, 0.5) + " ms, p95 " + percentile(latencies, 0.95) + " ms, max " +
      (latencies.length ? latencies[latencies.length - 1] : "–") + " ms"));
    var games = document.getElementById("decisions-games");
    games.innerHTML = "";
    var numbers = [];
    all.forEach(function (d) { if (numbers.indexOf(d.game_no) < 0) numbers.push(d.game_no); });
    numbers.forEach(function (game) {
      var mine = all.filter(function (d) { return d.game_no === game; });
      var section = el("section", {"class": "game-strip", "data-game": game});
      section.appendChild(el("h3", {}, "Game " + (game + 1) + ": " + mine.length + " decisions, " +
        mine.filter(function (d) { return d.outcome !== "ok"; }).length + " failed"));
      section.appendChild(strip(mine));
      var notable = mine.filter(function (d) { return kindOf(d) !== "ok"; });
      if (notable.length) {
        var list = el("ul", {"class": "notable"});
        notable.forEach(function (d) {
          var item = el("li", {"class": kindOf(d)});
          var link = el("a", {"href": "#decision-detail"}, "move " + d.version + ": " + d.latency_ms + " ms, " + d.outcome +
            (d.detail ? " (" + d.detail + ")" : ""));
          link.addEventListener("click", function () { showDetail(d); });
          item.appendChild(link);
          list.appendChild(item);
        });
        section.appendChild(list);
      }
      games.appendChild(section);
    });
    statusLine.textContent = "";
  }

  function load(token) {
    statusLine.textContent = "Loading…";
    fetch(api, {headers: {"Authorization": "Bearer " + token, "Accept": "application/json"}, cache: "no-store"})
      .then(function (response) {
        return response.json().then(function (body) { return {ok: response.ok, body: body}; });
      })
      .then(function (answer) {
        if (!answer.ok) {
          statusLine.textContent = (answer.body.title || "Refused") + ": " + (answer.body.detail || "");
          return;
        }
        sessionStorage.setItem(KEY, token);
        draw(answer.body);
      })
      .catch(function () { statusLine.textContent = "The service did not answer; try again."; });
  }

  document.getElementById("token-form").addEventListener("submit", function (event) {
    event.preventDefault();
    load(document.getElementById("token").value.trim());
  });
  var kept = sessionStorage.getItem(KEY);
  if (kept) load(kept);
})();

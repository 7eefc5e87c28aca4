/* Self-refreshing pages: #live[data-refresh] is re-fetched as server-rendered HTML every data-interval ms
 * (paused while the tab is hidden) and swapped in only when its content changed. Relative times
 * (<time class="ago" data-ts>) tick here every second, so they never count as a change; a chart whose data
 * did not change keeps its drawing (and the reader's hover) across a swap. */
(function () {
  "use strict";

  function agoText(ts) {
    var seconds = Math.max(0, Date.now() / 1000 - ts);
    if (seconds < 5) return "just now";
    if (seconds >= 86400) return Math.floor(seconds / 86400) + " d ago";
    if (seconds >= 3600) return Math.floor(seconds / 3600) + " h ago";
    if (seconds >= 60) return Math.floor(seconds / 60) + " min ago";
    return Math.floor(seconds) + " s ago";
  }

  function tickTimes(root) {
    root.querySelectorAll("time.ago[data-ts]").forEach(function (node) {
      node.textContent = agoText(parseFloat(node.getAttribute("data-ts")));
    });
  }

  // Serialise through the browser's parser so server HTML and live DOM compare like for like.
  function normalise(html) {
    var template = document.createElement("template");
    template.innerHTML = html;
    template.content.querySelectorAll("time.ago").forEach(function (node) { node.textContent = ""; });
    template.content.querySelectorAll("[data-series], svg[data-spark]").forEach(function (node) { node.innerHTML = ""; });
    return template.innerHTML;
  }

  function swap(live, html) {
    var kept = {};
    live.querySelectorAll("[data-series][id]").forEach(function (node) {
      kept[node.id] = {series: node.getAttribute("data-series"), node: node};
    });
    live.innerHTML = html;
    live.querySelectorAll("[data-series]").forEach(function (node) {
      var old = node.id && kept[node.id];
      if (old && old.series === node.getAttribute("data-series")) node.replaceWith(old.node);
      else if (window.TAChart) window.TAChart.line(node, JSON.parse(node.getAttribute("data-series")));
    });
    if (window.TAChart) {
      live.querySelectorAll("svg[data-spark]").forEach(function (node) {
        window.TAChart.spark(node, JSON.parse(node.getAttribute("data-spark")));
      });
    }
    tickTimes(live);
  }

  var live = document.getElementById("live");
  // Deferred scripts run before DOMContentLoaded, i.e. before the charts draw: this is the server's HTML.
  var lastHtml = live ? normalise(live.innerHTML) : null;

  function start() {
    tickTimes(document);
    setInterval(function () { tickTimes(document); }, 1000);
    if (!live) return;
    var url = live.getAttribute("data-refresh");
    var interval = parseInt(live.getAttribute("data-interval") || "4000", 10);
    var pulse = document.getElementById("pulse-text");
    var lastOk = Date.now();
    if (live.getAttribute("data-reload") === "1") {
      setTimeout(function () { location.reload(); }, interval);
      return;
    }
    function refresh() {
      if (document.hidden) return;
      fetch(url, {headers: {"Accept": "text/html"}, cache: "no-store"}).then(function (response) {
        if (!response.ok) throw new Error("HTTP " + response.status);
        return response.text();
      }).then(function (html) {
        lastOk = Date.now();
        var normalised = normalise(html);
        if (normalised !== lastHtml) {
          lastHtml = normalised;
          swap(live, html);
          live.setAttribute("data-swaps", String(parseInt(live.getAttribute("data-swaps") || "0", 10) + 1));
        }
      }).catch(function () { /* keep the last good view; the pulse shows its age */ });
    }
    setInterval(refresh, interval);
    setInterval(function () {
      if (!pulse) return;
      var age = Math.round((Date.now() - lastOk) / 1000);
      pulse.textContent = age < 2 ? "live" : "updated " + age + " s ago";
    }, 1000);
  }
  document.addEventListener("DOMContentLoaded", start);
})();

/* Self-refreshing pages: #live[data-refresh] is re-fetched as server-rendered HTML every data-interval ms
 * (paused while the tab is hidden) and swapped in when it changed; charts are redrawn after each swap. */
(function () {
  "use strict";
  function start() {
    var live = document.getElementById("live");
    if (!live) return;
    var url = live.getAttribute("data-refresh");
    var interval = parseInt(live.getAttribute("data-interval") || "4000", 10);
    var pulse = document.getElementById("pulse-text");
    var lastOk = Date.now(), lastHtml = null;
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
        if (html !== lastHtml) {
          lastHtml = html;
          live.innerHTML = html;
          if (window.TAChart) window.TAChart.renderAll(live);
          live.setAttribute("data-refreshed", String(lastOk));
        }
      }).catch(function () { /* keep the last good view; the pulse shows the age */ });
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

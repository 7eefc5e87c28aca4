/* TAChart: a tiny hand-written SVG line chart (no dependencies), shipped with Trick Arena.
 *
 *   TAChart.line(element, [{name, points: [[unixTime, value], ...]}, ...])   multi-series chart over time
 *   TAChart.spark(svgElement, [v1, v2, ...])                                 inline sparkline
 *   TAChart.renderAll(root)      draws every [data-series] and [data-spark] element below root
 *
 * The x axis is ordinal time (each rating change one step); hovering shows every series' value then.
 */
(function () {
  "use strict";
  var NS = "http://www.w3.org/2000/svg";
  var COLORS = ["#fbbf24", "#60a5fa", "#f472b6", "#34d399", "#a78bfa", "#f87171", "#22d3ee", "#fb923c"];

  function el(name, attrs, parent) {
    var node = document.createElementNS(NS, name);
    for (var key in attrs) node.setAttribute(key, attrs[key]);
    if (parent) parent.appendChild(node);
    return node;
  }

  function niceTicks(lo, hi, count) {
    var span = hi - lo || 1;
    var step = Math.pow(10, Math.floor(Math.log10(span / count)));
    var err = span / count / step;
    if (err >= 7.5) step *= 10; else if (err >= 3.5) step *= 5; else if (err >= 1.5) step *= 2;
    var ticks = [];
    for (var v = Math.ceil(lo / step) * step; v <= hi + 1e-9; v += step) ticks.push(Math.round(v * 100) / 100);
    return ticks;
  }

  function timeLabel(t, span) {
    var d = new Date(t * 1000);
    var hm = ("0" + d.getHours()).slice(-2) + ":" + ("0" + d.getMinutes()).slice(-2);
    if (span < 600) return hm + ":" + ("0" + d.getSeconds()).slice(-2);
    if (span < 86400 * 2) return hm;
    return (d.getMonth() + 1) + "/" + d.getDate();
  }

  function line(container, series) {
    container.innerHTML = "";
    series = (series || []).filter(function (s) { return s.points && s.points.length; });
    if (!series.length) {
      var note = document.createElement("div");
      note.className = "empty-chart";
      note.textContent = "No rated matches yet: the chart draws itself as results come in.";
      container.appendChild(note);
      return null;
    }
    var width = Math.max(container.clientWidth, 320), height = (container.clientHeight || 300) - 34;
    var pad = {l: 46, r: 16, t: 10, b: 26};
    var ys = [], seen = {};
    series.forEach(function (s) { s.points.forEach(function (p) { seen[p[0]] = true; ys.push(p[1]); }); });
    // An ordinal time axis: every moment a rating changed gets the same width, so a burst of matches and a
    // quiet night read equally well; the labels still say when.
    var times = Object.keys(seen).map(Number).sort(function (a, b) { return a - b; });
    var x0 = 0, x1 = Math.max(1, times.length - 1);
    var y0 = Math.min.apply(null, ys), y1 = Math.max.apply(null, ys);
    var ypad = Math.max(10, (y1 - y0) * 0.08); y0 -= ypad; y1 += ypad;
    var ordinal = function (t) {
      var lo = 0, hi = times.length - 1;
      if (t <= times[0]) return 0;
      if (t >= times[hi]) return hi;
      while (hi - lo > 1) { var mid = (lo + hi) >> 1; if (times[mid] <= t) lo = mid; else hi = mid; }
      return lo + (t - times[lo]) / (times[hi] - times[lo]);
    };
    var timeAt = function (i) { return times[Math.max(0, Math.min(times.length - 1, Math.round(i)))]; };
    var X = function (t) { return pad.l + (ordinal(t) - x0) / (x1 - x0) * (width - pad.l - pad.r); };
    var Y = function (v) { return pad.t + (1 - (v - y0) / (y1 - y0)) * (height - pad.t - pad.b); };
    var svg = el("svg", {width: width, height: height, viewBox: "0 0 " + width + " " + height, role: "img",
                         "aria-label": "Elo rating over time"}, container);
    var axis = el("g", {"class": "axis"}, svg);
    niceTicks(y0, y1, 5).forEach(function (v) {
      el("line", {"class": "grid-line", x1: pad.l, x2: width - pad.r, y1: Y(v), y2: Y(v)}, axis);
      el("text", {x: pad.l - 6, y: Y(v) + 4, "text-anchor": "end"}, axis).textContent = Math.round(v);
    });
    var xticks = Math.min(6, Math.max(2, Math.floor((width - pad.l) / 120)));
    var span = times[times.length - 1] - times[0], previous = null;
    for (var i = 0; i <= xticks; i++) {
      var t = timeAt(x1 * i / xticks), text = timeLabel(t, span);
      if (text === previous) continue;  // a burst of matches within one second: label it once
      previous = text;
      el("text", {x: X(t), y: height - 6, "text-anchor": i === 0 ? "start" : (i === xticks ? "end" : "middle")}, axis)
        .textContent = text;
    }
    series.forEach(function (s, index) {
      var color = COLORS[index % COLORS.length];
      var d = s.points.map(function (p, j) { return (j ? "L" : "M") + X(p[0]).toFixed(1) + " " + Y(p[1]).toFixed(1); });
      el("path", {"class": "series", d: d.join(" "), stroke: color, "data-name": s.name}, svg);
      var last = s.points[s.points.length - 1];
      el("circle", {cx: X(last[0]), cy: Y(last[1]), r: 3.5, fill: color}, svg);
    });
    var legend = document.createElement("div");
    legend.className = "legend";
    series.forEach(function (s, index) {
      var item = document.createElement("span");
      item.style.setProperty("--c", COLORS[index % COLORS.length]);
      item.textContent = s.name + " " + Math.round(s.points[s.points.length - 1][1]);
      legend.appendChild(item);
    });
    container.appendChild(legend);
    hover(container, svg, series, X, timeAt, x1, pad, width, height);
    return svg;
  }

  function hover(container, svg, series, X, timeAt, x1, pad, width, height) {
    var tip = document.createElement("div");
    tip.className = "tip";
    container.appendChild(tip);
    var guide = el("line", {y1: pad.t, y2: height - pad.b, stroke: "#8a9bbd", "stroke-dasharray": "3 3", visibility: "hidden"}, svg);
    svg.addEventListener("mousemove", function (event) {
      var box = svg.getBoundingClientRect();
      var t = timeAt((event.clientX - box.left - pad.l) / (width - pad.l - pad.r) * x1);
      tip.textContent = "";
      var when = document.createElement("div");
      when.textContent = new Date(t * 1000).toLocaleString();
      tip.appendChild(when);
      series.forEach(function (s, index) {
        var best = s.points[0];
        s.points.forEach(function (p) { if (p[0] <= t) best = p; });
        // Bot names are text the bots chose: set as text, never parsed as HTML.
        var row = document.createElement("div");
        row.style.color = COLORS[index % COLORS.length];
        row.appendChild(document.createTextNode(s.name + ": "));
        var rating = document.createElement("b");
        rating.textContent = String(Math.round(best[1]));
        row.appendChild(rating);
        tip.appendChild(row);
      });
      guide.setAttribute("x1", X(t)); guide.setAttribute("x2", X(t)); guide.setAttribute("visibility", "visible");
      tip.style.display = "block";
      tip.style.left = Math.min(event.clientX - box.left + 14, width - 170) + "px";
      tip.style.top = "10px";
    });
    svg.addEventListener("mouseleave", function () { tip.style.display = "none"; guide.setAttribute("visibility", "hidden"); });
  }

  function spark(svg, values) {
    if (!values || values.length < 2) return;
    var w = 90, h = 24, lo = Math.min.apply(null, values), hi = Math.max.apply(null, values);
    if (hi === lo) { hi += 1; lo -= 1; }
    svg.setAttribute("viewBox", "0 0 " + w + " " + h);
    svg.innerHTML = "";
    var pts = values.map(function (v, i) {
      return (i * (w - 4) / (values.length - 1) + 2).toFixed(1) + "," + (h - 2 - (v - lo) / (hi - lo) * (h - 4)).toFixed(1);
    });
    var up = values[values.length - 1] >= values[0];
    el("polyline", {points: pts.join(" "), fill: "none", stroke: up ? "#34d399" : "#f87171", "stroke-width": 1.6}, svg);
  }

  function renderAll(root) {
    root = root || document;
    root.querySelectorAll("[data-series]").forEach(function (node) { line(node, JSON.parse(node.getAttribute("data-series"))); });
    root.querySelectorAll("[data-spark]").forEach(function (node) { spark(node, JSON.parse(node.getAttribute("data-spark"))); });
  }

  window.TAChart = {line: line, spark: spark, renderAll: renderAll};
  document.addEventListener("DOMContentLoaded", function () { renderAll(document); });
  var resizeTimer = null;
  window.addEventListener("resize", function () { clearTimeout(resizeTimer); resizeTimer = setTimeout(function () { renderAll(document); }, 150); });
})();

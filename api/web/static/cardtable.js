/* The card table: draws one frame (hands, trick, totals) on the felt. Used by the replay viewer (frames
 * computed by the server from a finished game's record, every hand open) and by the live spectator view
 * (built here from the public table JSON: hand sizes only, never a card of a hand). */
(function () {
  "use strict";
  var SUITS = {S: ["\u2660", "black"], C: ["\u2663", "black"], H: ["\u2665", "red"], D: ["\u2666", "red"]};

  function card(code, extra) {
    var node = document.createElement("div");
    var suit = SUITS[code.slice(-1)] || ["?", "black"];
    var rank = code.slice(0, -1) === "T" ? "10" : code.slice(0, -1);
    node.className = "pc " + suit[1] + (extra ? " " + extra : "");
    node.setAttribute("data-card", code);
    node.innerHTML = '<span class="r">' + rank + '<i>' + suit[0] + '</i></span><span class="s">' + suit[0] + "</span>";
    return node;
  }

  function back() {
    var node = document.createElement("div");
    node.className = "pc back";
    return node;
  }

  function angle(seat, players) { return Math.PI / 2 + seat * 2 * Math.PI / players; }

  /* Keep a hand within `room` px of the felt (a side seat on a phone): its cards overlap more, and when too
     little of each would show to read its rank, the hand takes two rows. Never less overlap than usual
     (arena.css: .hand .pc). */
  function fitHand(hand, room) {
    var cards = hand.children, count = cards.length;
    if (count < 2 || !room) return;
    var width = cards[0].offsetWidth || 38, perRow = count;
    var step = (room - width) / (count - 1);
    if (step < 14 && count > 6) {
      perRow = Math.ceil(count / 2);
      step = (room - width) / (perRow - 1);
    }
    step = Math.max(6, Math.min(width - 16, step));
    if (perRow < count) {
      hand.style.flexWrap = "wrap";
      hand.style.width = Math.ceil(width + (perRow - 1) * step) + 1 + "px";
    }
    for (var i = 1; i < count; i++) cards[i].style.marginLeft = (i === perRow ? 0 : step - width) + "px";
  }

  /* The latency of the bot call that chose a seat's pass or sore card (a match's replay only). */
  function appendLatency(parent, frame, seat) {
    var took = frame.choice_latencies && frame.choice_latencies[String(seat)];
    if (!took) return;
    var node = document.createElement("span");
    node.className = "latency" + (took.outcome === "ok" ? "" : " bad");
    node.textContent = " " + Math.round(took.latency_ms) + " ms" + (took.outcome === "ok" ? "" : " · " + took.outcome);
    parent.appendChild(node);
  }

  function render(felt, frame, names, options) {
    options = options || {};
    felt.innerHTML = "";
    var players = names.length;
    var trick = document.createElement("div");
    trick.className = "trick";
    felt.appendChild(trick);
    for (var seat = 0; seat < players; seat++) {
      var a = angle(seat, players);
      var box = document.createElement("div");
      box.className = "seat";
      box.setAttribute("data-seat", seat);
      box.style.left = (50 + 34 * Math.cos(a)) + "%";
      box.style.top = (50 + 35 * Math.sin(a)) + "%";
      var plate = document.createElement("div");
      var winners = frame.winners || [];
      plate.className = "plate" + ((options.toAct || []).indexOf(seat) >= 0 ? " acting" : "") +
        (winners.indexOf(seat) >= 0 ? " winner" : "");
      var points = frame.points ? " (+" + frame.points[seat] + ")" : "";
      plate.innerHTML = "";
      plate.appendChild(document.createTextNode(names[seat]));
      var total = document.createElement("b");
      total.textContent = (frame.totals ? frame.totals[seat] : 0) + points;
      plate.appendChild(total);
      var hand = document.createElement("div");
      hand.className = "hand";
      if (frame.hands) {
        hand.setAttribute("data-open", "1");
        (frame.hands[seat] || []).forEach(function (code) { hand.appendChild(card(code)); });
      } else {
        for (var k = 0; k < (frame.counts ? frame.counts[seat] : 0); k++) hand.appendChild(back());
      }
      if (Math.sin(a) < -0.5) { box.appendChild(plate); box.appendChild(hand); } else { box.appendChild(hand); box.appendChild(plate); }
      if (frame.passed && frame.passed[seat]) {
        var passed = document.createElement("div");
        passed.className = "passed";
        passed.appendChild(document.createTextNode("passed "));
        frame.passed[seat].forEach(function (code) { passed.appendChild(card(code)); });
        appendLatency(passed, frame, seat);
        box.appendChild(passed);
      }
      if (frame.sore_cards && frame.sore_cards[seat]) {
        var sore = document.createElement("div");
        sore.className = "passed";
        sore.appendChild(document.createTextNode("sore "));
        sore.appendChild(card(frame.sore_cards[seat], "sore"));
        if (frame.kind === "sore") appendLatency(sore, frame, seat);
        box.appendChild(sore);
      }
      felt.appendChild(box);
      fitHand(hand, felt.clientWidth * (Math.abs(Math.cos(a)) > 0.5 ? 0.3 : 0.8));
    }
    var cards = frame.trick ? frame.trick.cards || [] : [];
    cards.forEach(function (played) {
      var a = angle(played.seat, players);
      var slot = document.createElement("div");
      slot.className = "slot";
      slot.style.left = (80 * Math.cos(a)) + "px";
      slot.style.top = (70 * Math.sin(a)) + "px";
      slot.appendChild(card(played.card, "big" + (played.seat === frame.trick.winner ? " take" : "")));
      if (played.latency_ms !== undefined) {  // the bot's call that chose this card (public call log)
        var took = document.createElement("span");
        took.className = "latency" + (played.outcome === "ok" ? "" : " bad");
        took.textContent = Math.round(played.latency_ms) + " ms" + (played.outcome === "ok" ? "" : " · " + played.outcome);
        took.title = "the bot answered in " + played.latency_ms + " ms (" + played.outcome + ")";
        slot.appendChild(took);
      }
      trick.appendChild(slot);
    });
    var facts = [];
    if (frame.trump) facts.push("trump " + (SUITS[frame.trump] || [frame.trump])[0]);
    if (frame.hearts_broken) facts.push("hearts broken");
    if (facts.length) {
      var info = document.createElement("div");
      info.className = "table-facts";
      info.textContent = facts.join(" · ");
      felt.appendChild(info);
    }
    if (!cards.length && options.note) {
      var note = document.createElement("div");
      note.className = "center-note";
      appendNote(note, options.note);
      felt.appendChild(note);
    }
  }

  // A note is text (bot names in it stay text: never parsed as HTML) or [text, link text, href].
  function appendNote(parent, note) {
    if (typeof note === "string") { parent.textContent = note; return; }
    parent.appendChild(document.createTextNode(note[0]));
    var link = document.createElement("a");
    link.href = note[2];
    link.textContent = note[1];
    parent.appendChild(link);
  }

  function describe(frame, names) {
    // The server's labels say "seat N"; the page knows the bots' names.
    var where = "Round " + (frame.round + 1) + ", trick " + frame.trick_no + " of " + frame.tricks_in_round;
    if (frame.kind === "trick") {
      var winner = frame.trick.winner;
      return where + ": " + (winner === null || winner === undefined ? "nobody" : names[winner]) + " takes it";
    }
    if (frame.kind === "end") {
      return "Game over: " + frame.winners.map(function (s) { return names[s]; }).join(" & ") +
        (frame.winners.length > 1 ? " win" : " wins");
    }
    return frame.label;
  }

  function cardText(code) {
    var span = document.createElement("span");
    var suit = SUITS[code.slice(-1)] || ["?", "black"];
    span.className = "ct " + suit[1];
    span.textContent = (code.slice(0, -1) === "T" ? "10" : code.slice(0, -1)) + suit[0];
    return span;
  }

  function moveNode(move) {
    var node = document.createElement("span");
    node.className = "move";
    (Array.isArray(move) ? move : [move]).forEach(function (code) { node.appendChild(cardText(String(code))); });
    return node;
  }

  function moveKey(move) { return Array.isArray(move) ? move.slice().sort().join(" ") : String(move); }

  function cell(row, content) {
    var td = document.createElement("td");
    if (typeof content === "string") td.textContent = content; else td.appendChild(content);
    row.appendChild(td);
  }

  // The analysis panel of a replay: asks the API for one seat's analysis (POST, then polls the Location),
  // then shows that seat's decisions on the frame they are played in (every candidate's value, the chosen
  // move and the best) and the costliest decisions as links to their frames. Returns the frame hook.
  function startAnalysis(root, frames, names, jump) {
    var url = root.getAttribute("data-analysis-url");
    var select = root.querySelector("#analysis-seat"), button = root.querySelector("#analyse");
    var status = root.querySelector("#analysis-status"), bar = root.querySelector("#analysis-progress");
    var here = root.querySelector("#analysis-here"), list = root.querySelector("#costliest");
    var head = root.querySelector("#costliest-head");
    var report = null, shown = 0;
    function frameOf(index) {
      for (var i = 0; i < frames.length; i++) if (frames[i].moves > index) return i;
      return frames.length - 1;
    }
    function describeDecision(d) {
      return "Round " + (d.round + 1) + " · " + d.kind + (d.forced ? " (forced)" : "") +
        (d.regret > 0 ? " · regret " + d.regret : "");
    }
    function drawHere(i) {
      shown = i;
      here.innerHTML = "";
      if (!report) return;
      var from = i > 0 ? frames[i - 1].moves : 0, to = frames[i].moves;
      report.decisions.filter(function (d) { return d.index >= from && d.index < to; }).forEach(function (d) {
        var box = document.createElement("div");
        box.className = "decision";
        box.setAttribute("data-index", String(d.index));
        var title = document.createElement("h4");
        title.textContent = names[report.seat] + " · " + describeDecision(d);
        box.appendChild(title);
        var table = document.createElement("table");
        var chosen = moveKey(d.chosen), best = d.best === null ? null : moveKey(d.best);
        var heuristic = d.heuristic === undefined ? null : moveKey(d.heuristic);
        d.candidates.slice().sort(function (a, b) {
          return (b.value === null ? -1e9 : b.value) - (a.value === null ? -1e9 : a.value);
        }).forEach(function (c) {
          var row = document.createElement("tr"), key = moveKey(c.move), marks = [];
          if (key === chosen) marks.push("chosen");
          if (key === best) marks.push("best");
          if (key === heuristic) marks.push("heuristic");
          row.className = marks.join(" ");
          row.setAttribute("data-move", key);
          cell(row, moveNode(c.move));
          cell(row, c.value === null ? "–" : c.value.toFixed(2));
          cell(row, marks.join(" · "));
          table.appendChild(row);
        });
        box.appendChild(table);
        here.appendChild(box);
      });
    }
    function drawCostliest() {
      list.innerHTML = "";
      var costly = report.decisions.filter(function (d) { return d.regret > 0; })
        .sort(function (a, b) { return b.regret - a.regret; }).slice(0, 8);
      head.hidden = false;
      if (!costly.length) {
        var none = document.createElement("li");
        none.textContent = "no decision cost anything";
        list.appendChild(none);
      }
      costly.forEach(function (d) {
        var item = document.createElement("li"), link = document.createElement("button");
        link.type = "button";
        link.className = "jump";
        link.setAttribute("data-frame", String(frameOf(d.index)));
        link.appendChild(document.createTextNode("regret " + d.regret + " · round " + (d.round + 1) + " · chose "));
        link.appendChild(moveNode(d.chosen));
        if (d.best !== null) { link.appendChild(document.createTextNode(" not ")); link.appendChild(moveNode(d.best)); }
        link.onclick = function () { jump(frameOf(d.index)); };
        item.appendChild(link);
        list.appendChild(item);
      });
    }
    function progress(state) {
      var p = state.progress || {done: 0, total: 0};
      bar.hidden = false;
      bar.max = Math.max(1, p.total);
      bar.value = p.done;
      status.textContent = state.status === "queued" ? "Queued…" : "Analysing: decision " + p.done + " of " + p.total;
    }
    function settle(state) {
      root.setAttribute("data-analysis", state.status);
      if (state.status === "failed") {
        status.textContent = "The analysis failed: " + (state.reason || "unknown reason") + ".";
        button.disabled = false;
        return;
      }
      if (state.status !== "done") { progress(state); setTimeout(function () { poll(state.url); }, 1000); return; }
      report = state.result;
      bar.hidden = true;
      button.disabled = false;
      status.textContent = names[report.seat] + ": total regret " + report.total_regret + " over " +
        report.decisions.length + " decisions (mean " + report.mean_regret +
        (report.mean_behind_heuristic === undefined ? "" :
          "; " + report.mean_behind_heuristic + " behind the house heuristic") +
        ") · " + report.budget_ms + " ms of search per decision";
      drawCostliest();
      drawHere(shown);
    }
    function failed(response) {
      return response.json().then(function (problem) {
        root.setAttribute("data-analysis", "refused");
        status.textContent = problem.detail || "the analysis was refused";
        button.disabled = false;
      });
    }
    function poll(location) {
      fetch(location, {cache: "no-store"}).then(function (r) { return r.ok ? r.json().then(settle) : failed(r); })
        .catch(function () { setTimeout(function () { poll(location); }, 2000); });
    }
    button.onclick = function () {
      button.disabled = true;
      report = null;
      here.innerHTML = "";
      status.textContent = "Asking for the analysis…";
      fetch(url + "?seat=" + encodeURIComponent(select.value), {method: "POST"})
        .then(function (r) { return r.ok ? r.json().then(settle) : failed(r); })
        .catch(function () { status.textContent = "The server could not be reached."; button.disabled = false; });
    };
    return drawHere;
  }

  /* The replay's controls over a list of frames: buttons, scrubber, arrow keys, Home/End, space to play.
     `load(frames, names)` shows the first; `jump(i)` shows frame i; `onShow(fn)` is told each frame shown. */
  function stepper(root) {
    var felt = root.querySelector("#felt"), label = root.querySelector("#frame-label");
    var step = root.querySelector("#step"), steps = root.querySelector("#steps");
    var scrub = root.querySelector("#scrub"), play = root.querySelector("#play");
    var frames = [], names = [], index = 0, timer = null, listener = null;
    function show(i) {
      if (!frames.length) return;
      index = Math.max(0, Math.min(frames.length - 1, i));
      var frame = frames[index], text = describe(frame, names);
      render(felt, frame, names, {note: frame.kind === "trick" ? null : text});
      label.textContent = text;
      step.textContent = String(index + 1);
      scrub.value = String(index);
      root.setAttribute("data-index", String(index));
      if (listener) listener(index);
      if (index === frames.length - 1) stop();
    }
    function stop() { if (timer) { clearInterval(timer); timer = null; } play.textContent = "\u25B6 Play"; }
    function toggle() {
      if (timer) { stop(); return; }
      if (index === frames.length - 1) show(0);
      timer = setInterval(function () { show(index + 1); }, 1100);
      play.textContent = "Pause";
    }
    root.querySelector("#first").onclick = function () { stop(); show(0); };
    root.querySelector("#prev").onclick = function () { stop(); show(index - 1); };
    root.querySelector("#next").onclick = function () { stop(); show(index + 1); };
    root.querySelector("#last").onclick = function () { stop(); show(frames.length - 1); };
    play.onclick = toggle;
    scrub.oninput = function () { stop(); show(parseInt(scrub.value, 10)); };
    document.addEventListener("keydown", function (event) {
      // A picker (the analysis seat, a file's game) and the scrubber answer arrow keys themselves.
      var target = event.target || {};
      if (root.hidden || target.tagName === "SELECT" || target.type === "range") return;
      if (event.key === "ArrowRight") { stop(); show(index + 1); }
      else if (event.key === "ArrowLeft") { stop(); show(index - 1); }
      else if (event.key === "Home") { stop(); show(0); }
      else if (event.key === "End") { stop(); show(frames.length - 1); }
      else if (event.key === " ") { event.preventDefault(); toggle(); }
    });
    return {
      load: function (newFrames, seatNames) {
        stop();
        frames = newFrames;
        names = seatNames;
        scrub.max = String(frames.length - 1);
        if (steps) steps.textContent = String(frames.length);
        root.hidden = false;  // before drawing: the felt fits the hands to its width
        show(0);
      },
      jump: function (i) { stop(); show(i); },
      onShow: function (fn) { listener = fn; },
      hide: function () { stop(); root.hidden = true; }
    };
  }

  function startReplay(root) {
    var frames = JSON.parse(root.getAttribute("data-frames"));
    var names = JSON.parse(root.getAttribute("data-seats"));
    var steps = stepper(root);
    if (root.querySelector("#analysis")) steps.onShow(startAnalysis(root, frames, names, steps.jump));
    steps.load(frames, names);
  }

  function spectatorFrame(table) {
    var view = table.view, players = table.players || view.players;
    var trick = view.trick && view.trick.cards && view.trick.cards.length ? {cards: view.trick.cards, winner: null} : null;
    if (!trick && view.tricks && view.tricks.length) {  // between tricks: show the one just taken
      var last = view.tricks[view.tricks.length - 1];
      trick = {winner: last.winner, cards: last.cards.map(function (c, i) {
        return typeof c === "string" ? {seat: (last.leader + i) % players, card: c} : c; })};
    }
    return {hands: null, counts: view.hand_sizes, totals: view.scores, trick: trick, winners: view.over ? view.winners : []};
  }

  // Polls a public table (an API table, or the live feed of a ladder match) once a second and draws it.
  function startSpectating(root) {
    var names = JSON.parse(root.getAttribute("data-seats"));
    var felt = root.querySelector("#felt"), label = root.querySelector("#frame-label");
    var status = document.getElementById("live-status");
    var url = root.getAttribute("data-state-url"), replay = root.getAttribute("data-replay-url");
    var lastKey = null, timer = null;
    function poll() {
      fetch(url, {cache: "no-store"}).then(function (r) { return r.json(); }).then(function (table) {
        var over = table.status === "over";
        if (over) clearInterval(timer);
        var view = table.view;
        if (!view) {  // a ladder match not started yet, or finished long ago
          status.textContent = over ? "finished" : "waiting for the first move";
          if (over) {
            var done = document.createElement("p");
            done.className = "muted";
            appendNote(done, ["This match is over. ", "Results and replays", replay]);
            felt.innerHTML = "";
            felt.appendChild(done);
          }
          return;
        }
        var game = table.games > 1 ? "Game " + (table.game_no + 1) + " of " + table.games + " · " : "";
        status.textContent = over ? "finished" : "live · " + game + "move " + table.version;
        var key = table.game_no + ":" + table.version + ":" + table.status;
        if (key === lastKey) return;
        lastKey = key;
        var note = over ? ["Game over. ", "Watch the replay with every hand", replay]
          : table.game_over ? "Game over · the next game of the match starts on a fresh deal" : "Waiting for the lead";
        render(felt, spectatorFrame(table), table.seat_names || names, {toAct: table.to_act, note: note});
        label.textContent = game + "Round " + (view.round + 1) + " · " + view.phase + " · move " + table.version +
          (over ? " · game over" : "");
        root.setAttribute("data-version", String(table.version));
      }).catch(function () { status.textContent = "reconnecting…"; });
    }
    poll();
    timer = setInterval(poll, 1000);
  }

  // The replay of a file (replay_file.js) steps through its frames with the same controls and labels.
  window.TATable = {render: render, card: card, describe: describe, stepper: stepper};
  document.addEventListener("DOMContentLoaded", function () {
    var replay = document.getElementById("replay");
    if (replay) startReplay(replay);
    var spectate = document.getElementById("spectate");
    if (spectate) startSpectating(spectate);
  });
})();

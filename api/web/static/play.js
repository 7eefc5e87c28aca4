/* Play a table against bots: the setup form opens a table and joins seat 0 (POST /api/tables, POST .../join),
 * keeping the seat token in localStorage; the table page plays it through the public move API only
 * (GET .../seats/{seat} long-poll, POST .../moves), so a person is just another seat. window.TAPlay holds the
 * page's own timings: when the first legal card was shown, and each move's round trip. */
(function () {
  "use strict";
  var SUITS = {S: ["\u2660", "spades", "black"], H: ["\u2665", "hearts", "red"],
               D: ["\u2666", "diamonds", "red"], C: ["\u2663", "clubs", "black"]};
  var RANKS = {T: "10", J: "J", Q: "Q", K: "K", A: "A"};
  var RANK_NAMES = {J: "jack", Q: "queen", K: "king", A: "ace", T: "10"};
  var STORE = "ta-seat:";
  var timings = {firstLegalMs: null, roundTrips: []};
  window.TAPlay = timings;

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function cardName(code) {
    var rank = code.slice(0, -1), suit = SUITS[code.slice(-1)] || ["?", code.slice(-1)];
    return (RANK_NAMES[rank] || rank) + " of " + suit[1];
  }

  /* A card face: rank and suit symbol in a corner and the suit's letter, so suits never rely on colour. */
  function face(node, code) {
    var rank = code.slice(0, -1), suit = SUITS[code.slice(-1)] || ["?", "", "black"];
    node.classList.add("face", suit[2]);
    node.setAttribute("data-card", code);
    node.appendChild(el("span", "rank", RANKS[rank] || rank));
    node.appendChild(el("span", "suit", suit[0]));
    node.appendChild(el("span", "suit-letter", code.slice(-1)));
    return node;
  }

  function problemText(response, body) {
    if (body && body.detail) return body.detail;
    return "HTTP " + response.status;
  }

  function api(method, url, body, token) {
    var headers = {"Accept": "application/json"};
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (token) headers["Authorization"] = "Bearer " + token;
    return fetch(url, {method: method, headers: headers, cache: "no-store",
                       body: body === undefined ? undefined : JSON.stringify(body)})
      .then(function (response) {
        return response.json().catch(function () { return null; }).then(function (data) {
          return {ok: response.ok, status: response.status, body: data, response: response};
        });
      });
  }

  // --- the setup form ------------------------------------------------------------------------------------

  function startSetup(form) {
    var games = JSON.parse(form.getAttribute("data-games"));
    var gameSelect = form.querySelector("#play-game"), playersSelect = form.querySelector("#play-players");
    var seatsBox = form.querySelector("#play-seats"), optionsBox = form.querySelector("#play-options");
    var error = form.querySelector("#play-error");
    function game() { return games.filter(function (g) { return g.id === gameSelect.value; })[0]; }
    function fillPlayers() {
      var g = game(), keep = parseInt(playersSelect.value, 10);
      playersSelect.innerHTML = "";
      for (var n = g.min; n <= g.max; n++) {
        var option = el("option", "", String(n));
        option.value = String(n);
        playersSelect.appendChild(option);
      }
      playersSelect.value = String(keep >= g.min && keep <= g.max ? keep : Math.min(4, g.max));
    }
    function fillSeats() {
      var g = game(), players = parseInt(playersSelect.value, 10);
      seatsBox.querySelectorAll(".field").forEach(function (node) { node.remove(); });
      for (var seat = 1; seat < players; seat++) {
        var field = el("div", "field");
        var label = el("label", "", "Seat " + (seat + 1));
        var select = el("select", "seat-choice");
        select.id = "play-seat-" + seat;
        label.htmlFor = select.id;
        var house = el("optgroup");
        house.label = "House bots";
        g.house.forEach(function (name) {
          var option = el("option", "", name);
          option.value = name;
          house.appendChild(option);
        });
        select.appendChild(house);
        if (g.bots.length) {
          var registered = el("optgroup");
          registered.label = "Registered bots";
          g.bots.forEach(function (bot) {
            var option = el("option", "", bot.name);
            option.value = bot.seat;
            registered.appendChild(option);
          });
          select.appendChild(registered);
        }
        select.value = g.house.indexOf("heuristic") >= 0 ? "heuristic" : g.house[0];
        field.appendChild(label);
        field.appendChild(select);
        seatsBox.appendChild(field);
      }
    }
    function fillOptions() {
      var g = game();
      optionsBox.innerHTML = "";
      Object.keys(g.options).forEach(function (name) {
        var field = el("div", "field");
        var input = el("input");
        input.type = "number";
        input.min = "1";
        input.id = "play-option-" + name;
        input.name = name;
        input.placeholder = g.options[name].default === null ? "default" : String(g.options[name].default);
        var label = el("label", "", name);
        label.htmlFor = input.id;
        label.title = g.options[name].doc;
        field.appendChild(label);
        field.appendChild(input);
        field.appendChild(el("small", "muted", g.options[name].doc));
        optionsBox.appendChild(field);
      });
    }
    gameSelect.addEventListener("change", function () { fillPlayers(); fillSeats(); fillOptions(); });
    playersSelect.addEventListener("change", fillSeats);
    fillPlayers(); fillSeats(); fillOptions();
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      error.textContent = "";
      var seats = ["open"];
      form.querySelectorAll(".seat-choice").forEach(function (select) { seats.push(select.value); });
      var own = form.querySelector("#play-own-bot").value.trim();
      var token = form.querySelector("#play-own-token").value.trim();
      if (own) seats[1] = "bot:" + own.replace(/^bot:/, "");
      var options = {};
      optionsBox.querySelectorAll("input").forEach(function (input) {
        if (input.value !== "") options[input.name] = parseInt(input.value, 10);
      });
      var button = form.querySelector("#play-start");
      button.disabled = true;
      var tables = form.getAttribute("data-tables-url");
      api("POST", tables, {game: gameSelect.value, seats: seats, options: options}, own ? token : null)
        .then(function (created) {
          if (!created.ok) throw new Error(problemText(created.response, created.body));
          var id = created.body.table_id;
          return api("POST", tables + "/" + id + "/seats/0/join").then(function (joined) {
            if (!joined.ok) throw new Error(problemText(joined.response, joined.body));
            localStorage.setItem(STORE + id, JSON.stringify({seat: 0, token: joined.body.token}));
            location.assign("/play/" + encodeURIComponent(id));
          });
        })
        .catch(function (failure) { error.textContent = failure.message; button.disabled = false; });
    });
  }

  // --- the table -----------------------------------------------------------------------------------------

  function startTable(root) {
    var tableId = root.getAttribute("data-table-id");
    var names = JSON.parse(root.getAttribute("data-seat-names"));
    var held = null;
    try { held = JSON.parse(localStorage.getItem(STORE + tableId) || "null"); } catch (ignored) { held = null; }
    var status = root.querySelector("#play-status"), reason = root.querySelector("#play-reason");
    var handBox = root.querySelector("#play-hand"), confirm = root.querySelector("#play-confirm");
    var scores = root.querySelector("#play-scores"), trickBox = root.querySelector("#play-trick");
    var trickLabel = root.querySelector("#play-trick-label"), facts = root.querySelector("#play-facts");
    if (!held || !held.token) {
      status.textContent = "This browser holds no seat at this table. ";
      var watch = el("a", "", "Watch it as a spectator");
      watch.href = root.getAttribute("data-watch-url");
      status.appendChild(watch);
      return;
    }
    var seat = held.seat;
    names = names.map(function (name, i) { return i === seat ? "You" : name; });
    var stateUrl = root.getAttribute("data-seats-url") + seat;
    var state = null, picked = [], sending = false, focusCard = null;
    root.setAttribute("data-seat", String(seat));

    function waitingFor(toAct) {
      return toAct.filter(function (s) { return s !== seat; }).map(function (s) { return names[s]; }).join(", ");
    }

    function prompt(view) {
      var decision = view.decision;
      if (state.status === "over") {
        var winners = (view.winners || []).map(function (s) { return names[s]; });
        return "Game over: " + winners.join(" & ") + (winners.length === 1 && winners[0] !== "You" ? " wins." : " win.");
      }
      if (!state.your_turn || !decision) return "Waiting for " + (waitingFor(state.to_act) || "the table") + "…";
      if (decision.kind === "pass") {
        return "Pass " + decision.count + " cards" + (view.pass_direction ? " " + view.pass_direction : "") +
          ": pick them, then press “Pass”. (" + picked.length + " of " + decision.count + " picked)";
      }
      if (decision.kind === "sore") {
        return "Choose your sore card: its suit becomes your sore suit for this round.";
      }
      return "Your turn: play a card (" + decision.legal.length + " legal).";
    }

    function renderScores(view) {
      scores.innerHTML = "";
      for (var s = 0; s < view.players; s++) {
        var row = el("tr", (state.to_act.indexOf(s) >= 0 ? "acting" : "") + (s === seat ? " me" : ""));
        var name = el("th", "", names[s]);
        name.scope = "row";
        row.appendChild(name);
        row.appendChild(el("td", "num", String(view.scores[s])));
        row.appendChild(el("td", "num", String(view.hand_sizes[s])));
        var note = el("td", "");
        if (state.to_act.indexOf(s) >= 0 && state.status !== "over") note.textContent = "to act";
        if ((view.winners || []).indexOf(s) >= 0) note.textContent = "winner";
        if (view.sore_cards && view.sore_cards[s]) {
          note.appendChild(document.createTextNode(" sore "));
          note.appendChild(face(el("span", "mini"), view.sore_cards[s]));
        }
        row.appendChild(note);
        scores.appendChild(row);
      }
    }

    function renderTrick(view) {
      trickBox.innerHTML = "";
      var plays = view.trick.cards, label = "Trick " + ((view.tricks || []).length + 1);
      if (!plays.length && view.tricks && view.tricks.length) {
        var last = view.tricks[view.tricks.length - 1];
        plays = last.cards.map(function (code, i) { return {seat: (last.leader + i) % view.players, card: code}; });
        label = "Last trick, taken by " + names[last.winner];
      }
      trickLabel.textContent = label;
      plays.forEach(function (play) {
        var item = el("li", "played");
        item.appendChild(el("span", "who", names[play.seat]));
        var card = face(el("span", "pc-card"), play.card);
        card.setAttribute("aria-label", names[play.seat] + ": " + cardName(play.card));
        item.appendChild(card);
        trickBox.appendChild(item);
      });
      var notes = [];
      if (view.trump) notes.push("trump " + (SUITS[view.trump] || [view.trump])[0] + " " + view.trump);
      if (view.hearts_broken) notes.push("hearts broken");
      if (view.phase) notes.push("round " + (view.round + 1) + " · " + view.phase);
      facts.textContent = notes.join(" · ");
    }

    function renderHand(view) {
      var decision = state.your_turn ? view.decision : null;
      var legal = decision ? decision.legal : [];
      var hadFocus = document.activeElement && handBox.contains(document.activeElement) ?
        document.activeElement.getAttribute("data-card") : focusCard;
      handBox.innerHTML = "";
      picked = picked.filter(function (code) { return view.hand.indexOf(code) >= 0; });
      view.hand.forEach(function (code) {
        var button = face(el("button", "pc-card"), code);
        button.type = "button";
        var isLegal = legal.indexOf(code) >= 0;
        var isPicked = picked.indexOf(code) >= 0;
        if (decision) button.classList.add(isLegal ? "legal" : "not-legal");
        if (isLegal) button.appendChild(el("span", "mark", "\u2713"));
        if (decision && decision.kind === "pass") button.setAttribute("aria-pressed", isPicked ? "true" : "false");
        if (isPicked) button.classList.add("picked");
        button.setAttribute("aria-label", cardName(code) + (decision ? (isLegal ? ", legal" : ", not legal now") : ""));
        button.addEventListener("click", function () { choose(code); });
        button.addEventListener("keydown", arrowKeys);
        handBox.appendChild(button);
      });
      if (hadFocus) {
        var again = handBox.querySelector('[data-card="' + hadFocus + '"]') || handBox.querySelector("button");
        if (again) again.focus();
      }
      var passing = decision && decision.kind === "pass";
      confirm.hidden = !passing;
      confirm.disabled = !passing || picked.length !== decision.count || sending;
      if (passing) confirm.textContent = "Pass " + picked.length + "/" + decision.count;
      if (legal.length && timings.firstLegalMs === null) {
        timings.firstLegalMs = performance.now();
        root.setAttribute("data-first-legal-ms", String(Math.round(timings.firstLegalMs)));
      }
    }

    function arrowKeys(event) {
      var buttons = Array.prototype.slice.call(handBox.querySelectorAll("button"));
      var index = buttons.indexOf(event.currentTarget);
      var next = null;
      if (event.key === "ArrowRight" || event.key === "ArrowDown") next = buttons[(index + 1) % buttons.length];
      if (event.key === "ArrowLeft" || event.key === "ArrowUp") next = buttons[(index - 1 + buttons.length) % buttons.length];
      if (event.key === "Home") next = buttons[0];
      if (event.key === "End") next = buttons[buttons.length - 1];
      if (next) { event.preventDefault(); next.focus(); focusCard = next.getAttribute("data-card"); }
    }

    function render() {
      var view = state.view;
      status.textContent = prompt(view);
      renderScores(view);
      renderTrick(view);
      renderHand(view);
      root.setAttribute("data-version", String(state.version));
      root.setAttribute("data-status", state.status);
      root.setAttribute("data-your-turn", state.your_turn ? "1" : "0");
      if (state.status === "over" && !root.querySelector(".play-replay")) {
        var link = el("a", "play-replay", "Replay the game with every hand");
        link.href = root.getAttribute("data-replay-url");
        status.appendChild(document.createTextNode(" "));
        status.appendChild(link);
        localStorage.removeItem(STORE + tableId);
      }
    }

    function choose(code) {
      if (!state || !state.your_turn || sending) return;
      var decision = state.view.decision;
      if (decision.kind === "pass") {
        var at = picked.indexOf(code);
        if (at >= 0) picked.splice(at, 1);
        else if (picked.length < decision.count) picked.push(code);
        focusCard = code;
        render();
        return;
      }
      send(code);
    }

    function send(move) {
      sending = true;
      reason.textContent = "";
      var started = performance.now();
      api("POST", stateUrl + "/moves", {move: move, expected_version: state.version}, held.token)
        .then(function (answer) {
          timings.roundTrips.push(performance.now() - started);
          root.setAttribute("data-moves", String(timings.roundTrips.length));
          sending = false;
          if (answer.ok) { picked = []; return; }
          // The API says why: an illegal card, a stale version (the table moved on), not your turn...
          reason.textContent = problemText(answer.response, answer.body);
          if (answer.status === 409) reason.textContent += " (the table is shown as it is now)";
          return refresh();
        })
        .catch(function () { sending = false; reason.textContent = "The move could not be sent; try again."; });
    }

    confirm.addEventListener("click", function () {
      var decision = state && state.view.decision;
      if (decision && decision.kind === "pass" && picked.length === decision.count) send(picked.slice());
    });

    function refresh() {
      return api("GET", stateUrl, undefined, held.token).then(function (answer) {
        if (answer.ok) { state = answer.body; render(); }
      });
    }

    function poll() {
      var after = state ? state.version : -1;
      api("GET", stateUrl + "?after=" + after + "&wait=25", undefined, held.token).then(function (answer) {
        if (answer.ok) {
          if (!state || answer.body.version !== state.version || answer.body.status !== state.status) {
            state = answer.body;
            render();
          }
          if (state.status !== "over") poll();
          return;
        }
        if (answer.status === 403 || answer.status === 404) {
          status.textContent = problemText(answer.response, answer.body);
          localStorage.removeItem(STORE + tableId);
          return;
        }
        setTimeout(poll, 1000);
      }).catch(function () {
        status.textContent = "reconnecting…";
        setTimeout(poll, 1000);
      });
    }
    poll();
  }

  document.addEventListener("DOMContentLoaded", function () {
    var form = document.getElementById("play-form");
    if (form) startSetup(form);
    var table = document.getElementById("play-table");
    if (table) startTable(table);
  });
})();

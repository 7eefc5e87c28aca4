/* The replay of a file the user has (/replay): FileReader reads it, replay_rules.js turns its record into the
 * frames the server's replay viewer shows, and cardtable.js draws them. The file's contents never leave the
 * page: nothing here makes a request. */
(function () {
  "use strict";

  function stepper(root) {
    var felt = root.querySelector("#felt"), label = root.querySelector("#frame-label");
    var step = root.querySelector("#step"), steps = root.querySelector("#steps");
    var scrub = root.querySelector("#scrub"), play = root.querySelector("#play");
    var frames = [], names = [], index = 0, timer = null;
    function show(i) {
      if (!frames.length) return;
      index = Math.max(0, Math.min(frames.length - 1, i));
      var frame = frames[index], text = window.TATable.describe(frame, names);
      window.TATable.render(felt, frame, names, {note: frame.kind === "trick" ? null : text});
      label.textContent = text;
      step.textContent = String(index + 1);
      scrub.value = String(index);
      root.setAttribute("data-index", String(index));
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
      // The game picker and the scrubber answer arrow keys themselves.
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
        steps.textContent = String(frames.length);
        root.hidden = false;  // before drawing: the felt fits the hands to its width
        show(0);
      },
      hide: function () { stop(); root.hidden = true; }
    };
  }

  function start(root) {
    var input = root.querySelector("#record-file"), drop = root.querySelector("#drop");
    var status = root.querySelector("#file-status"), problem = root.querySelector("#file-problem");
    var pick = root.querySelector("#record-pick"), choice = root.querySelector("#record-choice");
    var gameNames = JSON.parse(root.getAttribute("data-games") || "{}");
    var viewer = stepper(document.getElementById("local-replay"));
    var found = [], fileName = "";

    function refuse(message) {
      viewer.hide();
      problem.textContent = message;
      problem.hidden = false;
      root.setAttribute("data-state", "refused");
    }

    function open(n) {
      var record = found[n].record, frames;
      try {
        frames = window.TAReplayRules.replayFrames(record);
      } catch (error) {
        refuse(fileName + ": " + found[n].label + " does not replay: " + error.message);
        return;
      }
      problem.hidden = true;
      var names = [];
      for (var seat = 0; seat < record.players; seat++) names.push("seat " + seat);
      status.textContent = fileName + " · " + (gameNames[record.game] || record.game) + " · " + record.players +
        " players · " + frames.length + " steps · read on this device, not uploaded";
      viewer.load(frames, names);
      root.setAttribute("data-state", "shown");
    }

    function read(text) {
      try {
        found = window.TAReplayRules.recordsIn(text);
      } catch (error) {
        pick.hidden = true;
        refuse(fileName + ": " + error.message);
        return;
      }
      choice.innerHTML = "";
      found.forEach(function (item, n) {
        var option = document.createElement("option");
        option.value = String(n);
        option.textContent = item.label;
        choice.appendChild(option);
      });
      pick.hidden = found.length < 2;
      open(0);
    }

    function take(file) {
      if (!file) return;
      fileName = file.name;
      status.textContent = "Reading " + file.name + "…";
      var reader = new FileReader();
      reader.onload = function () { read(String(reader.result)); };
      reader.onerror = function () { refuse(file.name + ": the file could not be read"); };
      reader.readAsText(file);
    }

    input.onchange = function () { take(input.files && input.files[0]); };
    choice.onchange = function () { open(parseInt(choice.value, 10)); };
    drop.addEventListener("dragover", function (event) { event.preventDefault(); drop.classList.add("over"); });
    drop.addEventListener("dragleave", function () { drop.classList.remove("over"); });
    drop.addEventListener("drop", function (event) {
      event.preventDefault();
      drop.classList.remove("over");
      take(event.dataTransfer && event.dataTransfer.files[0]);
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    var root = document.getElementById("file-replay");
    if (root) start(root);
  });
})();

/* The replay of a file the user has (/replay): FileReader reads it, replay_rules.js turns its record into the
 * frames the server's replay viewer shows, and cardtable.js draws them. The file's contents never leave the
 * page: nothing here makes a request. */
(function () {
  "use strict";

  function start(root) {
    var input = root.querySelector("#record-file"), drop = root.querySelector("#drop");
    var status = root.querySelector("#file-status"), problem = root.querySelector("#file-problem");
    var pick = root.querySelector("#record-pick"), choice = root.querySelector("#record-choice");
    var gameNames = JSON.parse(root.getAttribute("data-games") || "{}");
    var viewer = window.TATable.stepper(document.getElementById("local-replay"));
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

// The replay viewer's shell: controls, the log, the views, the address. The game's
// renderer (window.gameViewer, from the game's package, inlined before this script)
// precomputes the table after every record and draws a step; the shell drives it.
// Step k is the state after record k of the replay file (the header is record 0).
(function () {
  "use strict";

  var data = JSON.parse(document.getElementById("replay-data").textContent);
  var recs = data.records;
  var header = recs[0];
  var n = header.players.length;
  var names = header.players.map(function (p) { return p.name; });

  function esc(text) {
    return String(text).replace(/[&<>"']/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
    });
  }
  function $(id) { return document.getElementById(id); }

  var game = window.gameViewer({ recs: recs, header: header, n: n, names: names, esc: esc, $: $ });
  var last = recs.length - 1;
  var roundStarts = game.rounds; // [{round, step}]

  // ---- elements -------------------------------------------------------------------
  var el = {
    step: $("step"), scrub: $("scrub"), log: $("log"), play: $("play"), speed: $("speed"),
    roundSelect: $("round-select"), view: $("view")
  };
  el.scrub.max = String(Math.max(last, 1));

  // view select: all hands open, or one seat's view
  var viewOpts = ['<option value="all">all hands open</option>'];
  for (var s = 0; s < n; s++) {
    viewOpts.push('<option value="' + s + '">as seat ' + s + " (" + esc(names[s]) + ") saw it</option>");
  }
  el.view.innerHTML = viewOpts.join("");
  el.roundSelect.innerHTML = roundStarts.map(function (x) {
    return '<option value="' + x.step + '">' + x.round + "</option>";
  }).join("");

  // ---- the log --------------------------------------------------------------------
  var viewSeat = null; // null = all hands open

  function describe(r, forLog) {
    var who = r.seat !== undefined ? esc(names[r.seat]) : "";
    if (r.type === "fault") return "FAULT (" + esc(r.kind) + ") " + who + ": " + esc(r.detail);
    if (r.type === "game_end") {
      var win = r.winners.map(function (w) { return esc(names[w]); }).join(", ") || "nobody";
      return "game over after " + r.rounds + " rounds" + (r.adjudicated ? " (round cap)" : "") + " · winner: " + win;
    }
    var text = game.describe(r, viewSeat);
    if (text === null || text === undefined) return esc(r.type);
    if (r.type === "action" && forLog && r.ms !== null && r.ms !== undefined) {
      text += ' <span class="ms">' + r.ms.toFixed(1) + " ms</span>";
    }
    return text;
  }

  function buildLog() {
    var parts = [];
    for (var i = 1; i <= last; i++) {
      var r = recs[i];
      var cls = "entry " + r.type.replace("_", "-");
      if (r.seat !== undefined) cls += " s" + (r.seat % 6);
      if (r.forced) cls += " forced";
      var title = r.type === "fault" && r.stderr ? ' title="' + esc(r.stderr) + '"' : "";
      parts.push('<li class="' + cls + '" data-step="' + i + '"' + title + "><span class=\"no\">" + i +
        "</span> " + describe(r, true) + "</li>");
    }
    el.log.innerHTML = parts.join("");
  }

  // ---- showing a step -------------------------------------------------------------
  var current = 0;

  function show(k) {
    k = Math.max(0, Math.min(last, k | 0));
    var r = recs[k];
    game.show(k, viewSeat, k ? describe(r, false) : "game " + header.match + " · " + n + " players");
    el.step.textContent = "step " + k + " / " + last;
    el.step.setAttribute("data-step", String(k));
    el.step.setAttribute("data-steps", String(last));
    el.scrub.value = String(k);
    // log: move the highlight, keep the line in view without scrolling the page
    var old = el.log.children[current - 1];
    if (old) old.classList.remove("current");
    var line = el.log.children[k - 1];
    if (line) {
      line.classList.add("current");
      var top = line.offsetTop; // the log is position: relative, so this is inside the log
      if (top < el.log.scrollTop || top + line.offsetHeight > el.log.scrollTop + el.log.clientHeight) {
        el.log.scrollTop = top - el.log.clientHeight / 3;
      }
    }
    // round select follows the step
    for (var i = roundStarts.length - 1; i >= 0; i--) {
      if (roundStarts[i].step <= k) { el.roundSelect.value = String(roundStarts[i].step); break; }
    }
    current = k;
    document.body.setAttribute("data-step", String(k));
  }

  // ---- controls -------------------------------------------------------------------
  var timer = null;
  function stop() {
    if (timer !== null) { clearTimeout(timer); timer = null; }
    el.play.innerHTML = "&#x25B6; play";
    el.play.setAttribute("data-playing", "false");
  }
  function tick() {
    if (current >= last) { stop(); return; }
    show(current + 1);
    timer = setTimeout(tick, 1000 / Number(el.speed.value));
  }
  function toggle() {
    if (timer !== null) { stop(); return; }
    if (current >= last) show(0);
    el.play.innerHTML = "|| pause";
    el.play.setAttribute("data-playing", "true");
    timer = setTimeout(tick, 1000 / Number(el.speed.value));
  }
  function go(k) { stop(); show(k); saveHash(); }
  function roundJump(dir) {
    var target = null;
    for (var i = 0; i < roundStarts.length; i++) {
      var x = roundStarts[i].step;
      if (dir > 0 && x > current) { target = x; break; }
      if (dir < 0 && x < current) target = x;
    }
    if (target !== null) go(target);
  }
  function setView(value) {
    viewSeat = value === "all" || value === null ? null : Number(value);
    el.view.value = viewSeat === null ? "all" : String(viewSeat);
    game.reset();
    buildLog();
    var keep = current; current = 0; show(keep);
    document.body.setAttribute("data-view", viewSeat === null ? "all" : String(viewSeat));
    saveHash();
  }
  function saveHash() {
    var h = "#step=" + current + (viewSeat === null ? "" : "&seat=" + viewSeat);
    if (location.hash !== h && history.replaceState) history.replaceState(null, "", h);
  }

  // a clicked button gives the focus back, so space and the arrows keep driving the replay
  document.querySelector(".controls").addEventListener("click", function (e) {
    if (e.target.closest && e.target.closest("button")) e.target.closest("button").blur();
  });
  $("first").addEventListener("click", function () { go(0); });
  $("prev").addEventListener("click", function () { go(current - 1); });
  $("next").addEventListener("click", function () { go(current + 1); });
  $("last").addEventListener("click", function () { go(last); });
  el.play.addEventListener("click", toggle);
  el.scrub.addEventListener("input", function () { go(Number(el.scrub.value)); });
  el.roundSelect.addEventListener("change", function () { go(Number(el.roundSelect.value)); el.roundSelect.blur(); });
  el.view.addEventListener("change", function () { setView(el.view.value); el.view.blur(); });
  el.speed.addEventListener("change", function () { el.speed.blur(); });
  el.log.addEventListener("click", function (e) {
    var li = e.target.closest ? e.target.closest("li[data-step]") : null;
    if (li) go(Number(li.getAttribute("data-step")));
  });
  $("table").addEventListener("click", function (e) {
    var a = e.target.closest ? e.target.closest("[data-goto]") : null;
    if (a) { e.preventDefault(); go(Number(a.getAttribute("data-goto"))); }
  });
  document.addEventListener("keydown", function (e) {
    var tag = e.target && e.target.tagName;
    if (tag === "SELECT" || tag === "INPUT" || e.altKey || e.ctrlKey || e.metaKey) return;
    if (tag === "BUTTON" && (e.key === " " || e.key === "Enter")) return; // the button's own click
    var key = e.key;
    if (key === "ArrowRight") go(current + 1);
    else if (key === "ArrowLeft") go(current - 1);
    else if (key === " " || key === "Spacebar") toggle();
    else if (key === "Home") go(0);
    else if (key === "End") go(last);
    else if (key === "PageDown") roundJump(1);
    else if (key === "PageUp") roundJump(-1);
    else return;
    e.preventDefault();
  });

  // start: #step=K&seat=S in the address selects a step and a view (the report links faults so)
  function fromHash() {
    var params = {};
    location.hash.replace(/^#/, "").split("&").forEach(function (part) {
      var kv = part.split("=");
      if (kv.length === 2) params[kv[0]] = decodeURIComponent(kv[1]);
    });
    var seat = params.seat !== undefined ? params.seat
      : data.seat === null || data.seat === undefined ? "all" : String(data.seat);
    if (!(Number(seat) >= 0 && Number(seat) < n)) seat = "all";
    var step = params.step !== undefined ? Number(params.step) || 0
      : roundStarts.length ? roundStarts[0].step : 0;
    return { seat: seat, step: step };
  }
  var start = fromHash();
  viewSeat = start.seat === "all" ? null : Number(start.seat);
  el.view.value = start.seat;
  buildLog();
  show(start.step);
  document.body.setAttribute("data-view", viewSeat === null ? "all" : String(viewSeat));
  // an edited address (or a link to another step of this page) moves the replay without a reload
  window.addEventListener("hashchange", function () {
    var want = fromHash();
    stop();
    if (want.seat !== (viewSeat === null ? "all" : String(viewSeat))) { current = want.step; setView(want.seat); }
    show(want.step);
  });
  document.body.setAttribute("data-ready", "true");

  // for tests and the console: read-only access to the computed steps
  window.llamaViewer = window.replayViewer = {
    go: go, show: show, setView: setView, steps: last,
    current: function () { return current; }
  };
})();

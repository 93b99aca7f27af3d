// L.L.A.M.A. replay viewer. Reads the replay records embedded in the page, computes the
// state after every record once (O(records x seats)), then shows any step by touching
// only the elements that change, so stepping and playing stay fast on 50-round games.
// Step k is the state after record k of the replay file (the header is record 0).
(function () {
  "use strict";

  var data = JSON.parse(document.getElementById("replay-data").textContent);
  var recs = data.records;
  var header = recs[0];
  var n = header.players.length;
  var names = header.players.map(function (p) { return p.name; });
  var LLAMA = 7;

  function esc(text) {
    return String(text).replace(/[&<>"']/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
    });
  }
  function cardName(c) { return c === LLAMA ? "L" : String(c); }
  function cardHtml(c, extra) {
    var face = c === LLAMA
      ? '<svg viewBox="0 0 32 32" aria-hidden="true"><use href="#llama"></use></svg>'
      : "<b>" + c + "</b>";
    return '<span class="card v' + c + (extra ? " " + extra : "") + '" data-card="' + c +
      '" title="' + (c === LLAMA ? "Llama" : c) + '">' + face + "</span>";
  }
  function sortNum(a, b) { return a - b; }
  function filled(value) { var out = []; for (var i = 0; i < n; i++) out.push(value); return out; }

  // ---- precompute every step ------------------------------------------------------
  // A step shares unchanged arrays with the step before (a hand changes one seat at a time).
  var steps = [null];
  var roundStarts = [];   // [{round, step}]
  var roundEnds = [];     // [{round, step, rec}]
  var s0 = {
    rec: header, round: 0, first: null, hands: filled(null).map(function () { return []; }),
    quit: filled(false), forfeited: filled(false), discard: null, stock: [], drawn: 0,
    scores: filled(0), actor: null, fresh: null, ended: 0, over: null
  };
  var prev = s0;
  for (var k = 1; k < recs.length; k++) {
    var r = recs[k];
    var st = {
      rec: r, round: prev.round, first: prev.first, hands: prev.hands, quit: prev.quit,
      forfeited: prev.forfeited, discard: prev.discard, stock: prev.stock, drawn: prev.drawn,
      scores: prev.scores, actor: null, fresh: null, ended: prev.ended, over: prev.over
    };
    if (r.type === "round_start") {
      st.round = r.round; st.first = r.first;
      st.hands = r.hands.map(function (h) { return h.slice().sort(sortNum); });
      st.quit = filled(false); st.discard = r.discard; st.stock = r.stock; st.drawn = 0;
      roundStarts.push({ round: r.round, step: k });
    } else if (r.type === "action") {
      var seat = r.seat;
      st.actor = seat;
      if (r.action === "play") {
        var hand = prev.hands[seat].slice();
        var at = hand.indexOf(r.card);
        if (at >= 0) hand.splice(at, 1);
        st.hands = prev.hands.slice(); st.hands[seat] = hand; st.discard = r.card;
      } else if (r.action === "draw") {
        var grown = prev.hands[seat].concat([r.drawn]).sort(sortNum);
        st.hands = prev.hands.slice(); st.hands[seat] = grown; st.drawn = prev.drawn + 1;
        st.fresh = r.drawn;
      } else {
        st.quit = prev.quit.slice(); st.quit[seat] = true;
      }
    } else if (r.type === "fault") {
      st.actor = r.seat;
      st.forfeited = prev.forfeited.slice(); st.forfeited[r.seat] = true;
    } else if (r.type === "round_end") {
      st.scores = r.scores.slice(); st.ended = prev.ended + 1;
      roundEnds.push({ round: r.round, step: k, rec: r });
    } else if (r.type === "game_end") {
      st.scores = r.scores.slice(); st.over = r;
    }
    steps.push(st);
    prev = st;
  }
  var last = steps.length - 1;

  // ---- elements -------------------------------------------------------------------
  function $(id) { return document.getElementById(id); }
  var el = {
    step: $("step"), scrub: $("scrub"), discard: $("discard"), stockCount: $("stock-count"),
    stockCards: $("stock-cards"), round: $("round"), event: $("event"), log: $("log"),
    seats: $("seats"), results: $("results"), play: $("play"), speed: $("speed"),
    roundSelect: $("round-select"), view: $("view")
  };
  el.scrub.max = String(Math.max(last, 1));

  var seatHtml = [];
  for (var s = 0; s < n; s++) {
    seatHtml.push(
      '<div class="seat" id="seat-' + s + '" data-testid="seat-' + s + '">' +
      '<div class="seat-head"><span class="seat-no">' + s + '</span> ' +
      '<span class="name" data-testid="name-' + s + '">' + esc(names[s]) + "</span>" +
      '<span class="version">' + esc(header.players[s].version) + "</span>" +
      '<span class="badges" data-testid="badges-' + s + '"></span></div>' +
      '<div class="hand" data-testid="hand-' + s + '"></div>' +
      '<div class="seat-foot"><span>cards <b data-testid="count-' + s + '"></b></span>' +
      '<span>score <b data-testid="score-' + s + '"></b></span>' +
      '<span class="last" data-testid="last-' + s + '"></span></div></div>');
  }
  el.seats.innerHTML = seatHtml.join("");
  var seatEls = [];
  for (s = 0; s < n; s++) {
    var root = $("seat-" + s);
    var q = function (id) { return root.querySelector('[data-testid="' + id + '"]'); };
    seatEls.push({
      root: root, hand: q("hand-" + s), count: q("count-" + s), score: q("score-" + s),
      badges: q("badges-" + s), last: q("last-" + s)
    });
  }

  // view select: all hands open, or one seat's view
  var viewOpts = ['<option value="all">all hands open</option>'];
  for (s = 0; s < n; s++) {
    viewOpts.push('<option value="' + s + '">as seat ' + s + " (" + esc(names[s]) + ") saw it</option>");
  }
  el.view.innerHTML = viewOpts.join("");
  el.roundSelect.innerHTML = roundStarts.map(function (x) {
    return '<option value="' + x.step + '">' + x.round + "</option>";
  }).join("");

  // round results table, one row per finished round; rows appear as their round ends
  var headCells = ["<th>round</th>"];
  for (s = 0; s < n; s++) headCells.push("<th>" + s + " " + esc(names[s]) + "</th>");
  el.results.tHead.innerHTML = "<tr>" + headCells.join("") + "</tr>";
  el.results.tBodies[0].innerHTML = roundEnds.map(function (x) {
    var cells = ['<th><a href="#" data-goto="' + x.step + '">' + x.round + "</a></th>"];
    for (var t = 0; t < n; t++) {
      var pen = x.rec.penalties[t], ret = x.rec.returned[t];
      cells.push('<td data-testid="result-' + x.round + "-" + t + '" title="penalty ' + pen +
        ", returned " + ret + '">' + (pen ? "+" + pen : "0") +
        (ret ? ' <span class="ret">&minus;' + ret + "</span>" : "") +
        ' &rarr; <b>' + x.rec.scores[t] + "</b></td>");
    }
    return '<tr data-round="' + x.round + '" data-step="' + x.step + '" hidden>' + cells.join("") + "</tr>";
  }).join("");
  var resultRows = el.results.tBodies[0].rows;

  // ---- the log --------------------------------------------------------------------
  var viewSeat = null; // null = all hands open

  function actionText(r) {
    var what;
    if (r.action === "play") what = "plays " + cardName(r.card);
    else if (r.action === "draw") {
      // another seat's drawn card is hidden in a seat's view, as at a real table
      what = viewSeat === null || viewSeat === r.seat ? "draws " + cardName(r.drawn) : "draws";
    } else what = "quits";
    return what + (r.forced ? " (forced)" : "");
  }

  function describe(r, forLog) {
    var who = r.seat !== undefined ? esc(names[r.seat]) : "";
    if (r.type === "round_start") {
      return "round " + r.round + " · " + esc(names[r.first]) + " starts · discard " + cardName(r.discard) +
        " · stock " + r.stock.length;
    }
    if (r.type === "action") {
      var ms = forLog && r.ms !== null && r.ms !== undefined ? ' <span class="ms">' + r.ms.toFixed(1) + " ms</span>" : "";
      return who + " " + actionText(r) + ms;
    }
    if (r.type === "fault") return "FAULT (" + esc(r.kind) + ") " + who + ": " + esc(r.detail);
    if (r.type === "round_end") {
      return "round " + r.round + " ends · scores " + r.scores.join(" / ");
    }
    if (r.type === "game_end") {
      var win = r.winners.map(function (w) { return esc(names[w]); }).join(", ") || "nobody";
      return "game over after " + r.rounds + " rounds" + (r.adjudicated ? " (round cap)" : "") + " · winner: " + win;
    }
    return esc(r.type);
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
  var shownHand = filled(null); // what each hand container shows now, to skip unchanged ones
  var shownRows = 0;

  function handKey(st, seat, open) {
    return open ? "o" + st.hands[seat].join(",") + (st.actor === seat && st.fresh ? "!" + st.fresh : "")
      : "h" + st.hands[seat].length;
  }

  function drawHand(st, seat, open) {
    var box = seatEls[seat].hand;
    var key = handKey(st, seat, open);
    if (shownHand[seat] === key) return;
    shownHand[seat] = key;
    var hand = st.hands[seat];
    if (open) {
      var freshDone = false;
      box.innerHTML = hand.map(function (c) {
        var mark = !freshDone && st.actor === seat && st.fresh === c;
        if (mark) freshDone = true;
        return cardHtml(c, mark ? "fresh" : "");
      }).join("");
      box.setAttribute("data-cards", hand.join(","));
      box.removeAttribute("data-hidden");
    } else {
      var backs = [];
      for (var i = 0; i < Math.min(hand.length, 24); i++) backs.push('<span class="card back"></span>');
      if (hand.length > 24) backs.push('<span class="more">+' + (hand.length - 24) + "</span>");
      box.innerHTML = backs.join("");
      box.removeAttribute("data-cards");
      box.setAttribute("data-hidden", "true");
    }
    box.setAttribute("data-count", String(hand.length));
  }

  function show(k) {
    k = Math.max(0, Math.min(last, k | 0));
    var st = steps[k] || s0;
    var r = st.rec;
    for (var seat = 0; seat < n; seat++) {
      var open = viewSeat === null || viewSeat === seat;
      var se = seatEls[seat];
      drawHand(st, seat, open);
      se.count.textContent = String(st.hands[seat].length);
      se.score.textContent = String(st.scores[seat]);
      var badges = "";
      if (st.quit[seat]) badges += '<span class="badge quit">quit</span>';
      if (st.forfeited[seat]) badges += '<span class="badge fault">fault</span>';
      if (st.over && st.over.winners.indexOf(seat) >= 0) badges += '<span class="badge win">winner</span>';
      if (st.round && st.first === seat) badges += '<span class="badge first" title="started the round">1st</span>';
      if (se.badgeHtml !== badges) { se.badges.innerHTML = badges; se.badgeHtml = badges; }
      se.root.setAttribute("data-quit", st.quit[seat] ? "true" : "false");
      se.root.setAttribute("data-forfeited", st.forfeited[seat] ? "true" : "false");
      se.root.classList.toggle("actor", st.actor === seat);
      se.root.classList.toggle("quit", st.quit[seat]);
      se.root.classList.toggle("viewer", viewSeat === seat);
      se.last.textContent = st.actor === seat && r.type === "action" ? actionText(r) : "";
    }
    el.discard.innerHTML = st.discard ? cardHtml(st.discard, "big") : '<span class="card empty big"></span>';
    el.discard.setAttribute("data-card", st.discard ? String(st.discard) : "");
    var left = st.stock.length - st.drawn;
    el.stockCount.textContent = String(left);
    el.stockCount.parentNode.setAttribute("data-count", String(left));
    el.stockCount.setAttribute("data-count", String(left));
    if (viewSeat === null && left > 0) {
      el.stockCards.innerHTML = '<span class="label">stock, top first</span>' +
        st.stock.slice(st.drawn).map(function (c) { return cardHtml(c, "mini"); }).join("");
      el.stockCards.setAttribute("data-cards", st.stock.slice(st.drawn).join(","));
    } else {
      el.stockCards.innerHTML = viewSeat === null ? "" : '<span class="label">stock order hidden</span>';
      el.stockCards.removeAttribute("data-cards");
    }
    el.round.textContent = st.round ? "round " + st.round : "before the deal";
    el.round.setAttribute("data-round", String(st.round));
    el.event.innerHTML = k ? describe(r, false) : "game " + header.match + " · " + n + " players";
    el.event.className = "event " + (r.type === "fault" ? "fault" : "");
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
    // results rows: rows are in step order, so only the ones between the old and new count change
    var want = st.ended;
    while (shownRows < want) resultRows[shownRows++].hidden = false;
    while (shownRows > want) resultRows[--shownRows].hidden = true;
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
    shownHand = filled(null);
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
  el.results.addEventListener("click", function (e) {
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
  window.llamaViewer = {
    go: go, show: show, setView: setView, steps: last,
    current: function () { return current; }
  };
})();

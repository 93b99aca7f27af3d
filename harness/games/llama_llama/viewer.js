// Llama Llama replay viewer. Reads the replay records embedded in the page, computes the
// table after every record once, then shows any step: the four displays with their goals
// (face down until revealed), every hand (or one seat's view), each pass, and the scoring
// breakdown of each goal at the end of a round. Step k is the state after record k.
(function () {
  "use strict";

  var data = JSON.parse(document.getElementById("replay-data").textContent);
  var recs = data.records;
  var header = recs[0];
  var n = header.players.length;
  var names = header.players.map(function (p) { return p.name; });
  var faces = {};
  header.options.card_set.cards.forEach(function (c) { faces[c.id] = c; });
  var sides = header.options.card_set.displays.map(function (d) {
    return n === 4 ? { passes: d.four_players.passes, dummy: false } : d.two_three_players;
  });

  function esc(text) {
    return String(text).replace(/[&<>"']/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
    });
  }
  function holderName(h) {
    if (h < n) return names[h];
    return n === 2 ? "dummy " + (h - n + 1) : "dummy";
  }
  function faceText(id) {
    var c = faces[id];
    return "card " + id + " · counts as " + c.letter + " · top " + c.top.letter + "=" + c.top.points +
      " · bottom " + c.bottom.letters + "=" + c.bottom.points;
  }
  function cardHtml(id, extra) {
    var c = faces[id];
    return '<span class="card l' + c.letter + (extra ? " " + extra : "") + '" data-card="' + id +
      '" title="' + esc(faceText(id)) + '"><b>' + esc(c.letter) + "</b><i>" + id + "</i></span>";
  }
  function goalHtml(id) {
    var c = faces[id];
    return '<span class="goal" data-card="' + id + '" title="' + esc(faceText(id)) + '">' +
      '<span class="top">' + esc(c.top.letter) + " = " + c.top.points + "</span>" +
      '<span class="bottom">' + esc(c.bottom.letters) + " = " + c.bottom.points + "</span>" +
      '<span class="id">' + id + " (" + esc(c.letter) + ")</span></span>";
  }
  function backHtml() { return '<span class="card back"></span>'; }
  function sortNum(a, b) { return a - b; }
  function without(hand, cards) {
    var out = hand.slice();
    cards.forEach(function (c) { var at = out.indexOf(c); if (at >= 0) out.splice(at, 1); });
    return out;
  }

  // ---- precompute every step ----------------------------------------------------------
  var steps = [];
  var roundStarts = [];
  var s0 = {
    rec: header, round: 0, ring: [], hands: [[], [], [], []], goals: [null, null, null, null],
    displays: [], owners: [], revealed: 0, scores: names.map(function () { return 0; }),
    before: names.map(function () { return 0; }), forfeited: names.map(function () { return false; }),
    moves: null, end: null, over: null, history: []
  };
  steps.push(s0);
  var prev = s0;
  for (var k = 1; k < recs.length; k++) {
    var r = recs[k];
    var st = {
      rec: r, round: prev.round, ring: prev.ring, hands: prev.hands, goals: prev.goals,
      displays: prev.displays, owners: prev.owners, revealed: prev.revealed, scores: prev.scores,
      before: prev.before, forfeited: prev.forfeited, moves: null, end: null, over: prev.over,
      history: prev.history
    };
    if (r.type === "round_start") {
      st.round = r.round; st.ring = r.ring;
      st.hands = r.hands.map(function (h) { return h.slice().sort(sortNum); });
      st.goals = [null, null, null, null]; st.displays = []; st.owners = []; st.revealed = 0;
      st.before = prev.scores;
      roundStarts.push({ round: r.round, step: k });
    } else if (r.type === "action") {
      st.hands = prev.hands.slice();
      if (r.action === "goal") {
        st.hands[r.seat] = without(prev.hands[r.seat], [r.card]);
        st.goals = prev.goals.slice(); st.goals[r.seat] = r.card;
      } else {
        st.hands[r.seat] = without(prev.hands[r.seat], r.cards);
      }
    } else if (r.type === "goals") {
      st.hands = prev.hands.slice(); st.goals = r.chosen.slice();
      for (var h = n; h < 4; h++) st.hands[h] = without(prev.hands[h], [r.chosen[h]]);
      st.displays = r.displays; st.owners = r.owners;
    } else if (r.type === "reveal") {
      st.revealed = r.display;
    } else if (r.type === "pass") {
      st.hands = prev.hands.slice();
      var dummyFirst = r.moves.slice().sort(function (a, b) { return (a.by >= n) - (b.by >= n); });
      dummyFirst.forEach(function (m) {
        if (m.by >= n) st.hands[m.by] = without(st.hands[m.by], m.cards);
        st.hands[m.to] = st.hands[m.to].concat(m.cards).sort(sortNum);
      });
      st.moves = r.moves;
    } else if (r.type === "fault") {
      st.forfeited = prev.forfeited.slice(); st.forfeited[r.seat] = true;
    } else if (r.type === "round_end") {
      st.scores = r.scores.slice(); st.end = r;
      st.history = prev.history.concat([{ round: r.round, step: k, rec: r }]);
    } else if (r.type === "game_end") {
      st.scores = r.scores.slice(); st.over = r;
    }
    steps.push(st);
    prev = st;
  }
  var last = steps.length - 1;

  // ---- what a seat knows ------------------------------------------------------------------
  var viewSeat = data.seat === null || data.seat === undefined ? null : data.seat;
  function knownDisplay(st, seat) {
    // from round 2 a player learns its goal's display, unless it was tied in totals
    if (st.round < 2 || !st.owners.length) return null;
    var same = st.before.filter(function (t) { return t === st.before[seat]; }).length;
    return same === 1 ? st.owners.indexOf(seat) + 1 : null;
  }

  function describe(r) {
    var mine = viewSeat === null || r.seat === viewSeat;
    var who = r.seat !== undefined ? esc(holderName(r.seat)) : "";
    if (r.type === "round_start") {
      return "round " + r.round + " · passing left: " + r.ring.map(holderName).map(esc).join(" → ");
    }
    if (r.type === "action") {
      var forced = r.forced ? " (forced)" : "";
      if (r.action === "goal") return who + (mine ? " chooses goal " + r.card : " chooses a goal") + forced;
      return who + (mine ? " passes " + r.cards.join(" ") : " passes " + r.cards.length + " card" +
        (r.cards.length > 1 ? "s" : "")) + forced;
    }
    if (r.type === "goals") {
      if (viewSeat !== null) return "goals placed face down";
      return "goals placed: " + r.displays.map(function (c, i) {
        return (i + 1) + ": " + c + " (" + esc(holderName(r.owners[i])) + ")";
      }).join(", ");
    }
    if (r.type === "reveal") {
      return "display " + r.display + " revealed: " + r.card + " " + esc(faces[r.card].top.letter) + "=" +
        faces[r.card].top.points + " | " + esc(faces[r.card].bottom.letters) + "=" + faces[r.card].bottom.points +
        (r.count ? " · pass " + r.count : " · no pass");
    }
    if (r.type === "pass") {
      var shown = r.moves.filter(function (m) { return viewSeat === null || m.to === viewSeat || m.by === viewSeat; });
      return "passes delivered" + (shown.length ? ": " : "") + shown.map(function (m) {
        return esc(holderName(m.by)) + " → " + esc(holderName(m.to)) + " " + m.cards.join(" ");
      }).join(", ");
    }
    if (r.type === "fault") return "FAULT (" + esc(r.kind) + ") " + who + ": " + esc(r.detail);
    if (r.type === "round_end") {
      return "round " + r.round + " ends · " + names.map(function (nm, s) {
        return esc(nm) + " +" + r.round_scores[s] + " = " + r.scores[s];
      }).join(" · ");
    }
    if (r.type === "game_end") {
      var win = r.winners.map(function (w) { return esc(names[w]); }).join(" and ") || "nobody";
      return "game over after " + r.rounds + " rounds · " + win + (r.winners.length > 1 ? " share the win" : " wins");
    }
    return esc(r.type);
  }

  // ---- elements ------------------------------------------------------------------------
  function $(id) { return document.getElementById(id); }
  var el = {
    step: $("step"), scrub: $("scrub"), round: $("round"), event: $("event"), log: $("log"),
    displays: $("displays"), hands: $("hands"), breakdown: $("breakdown"), results: $("results"),
    play: $("play"), speed: $("speed"), roundSelect: $("round-select"), view: $("view")
  };
  el.scrub.max = String(Math.max(last, 1));
  var viewOpts = ['<option value="all">all hands open</option>'];
  for (var s = 0; s < n; s++) {
    viewOpts.push('<option value="' + s + '">as seat ' + s + " (" + esc(names[s]) + ") saw it</option>");
  }
  el.view.innerHTML = viewOpts.join("");
  el.view.value = viewSeat === null ? "all" : String(viewSeat);
  el.roundSelect.innerHTML = roundStarts.map(function (x) {
    return '<option value="' + x.step + '">' + x.round + "</option>";
  }).join("");

  function buildLog() {
    var parts = [];
    for (var i = 1; i <= last; i++) {
      var r = recs[i];
      var cls = "entry " + r.type.replace("_", "-") + (r.forced ? " forced" : "");
      var title = r.type === "fault" && r.stderr ? ' title="' + esc(r.stderr) + '"' : "";
      parts.push('<li class="' + cls + '" data-step="' + i + '"' + title + '><span class="no">' + i +
        "</span> " + describe(r) + "</li>");
    }
    el.log.innerHTML = parts.join("");
  }

  function displaysHtml(st) {
    var mineAt = viewSeat === null ? null : knownDisplay(st, viewSeat);
    var out = [];
    for (var d = 1; d <= 4; d++) {
      var side = sides[d - 1];
      var placed = st.displays.length ? st.displays[d - 1] : null;
      var up = placed !== null && d <= st.revealed;
      var body;
      if (up) body = goalHtml(placed);
      else if (placed === null) body = '<span class="goal empty"></span>';
      else if (viewSeat === null) body = '<span class="goal down open">' + goalHtml(placed) + "</span>";
      else body = '<span class="goal back"></span>';
      // whose goal lies where is hidden from a seat, even once revealed; it knows only its own
      var owner = placed !== null && viewSeat === null ? esc(holderName(st.owners[d - 1])) : "";
      if (viewSeat !== null && (mineAt === d || (up && placed === st.goals[viewSeat]))) owner = "your goal";
      out.push('<div class="display' + (up ? " up" : "") + (st.rec.type === "reveal" && st.rec.display === d ? " now" : "") +
        '" data-testid="display-' + d + '" data-goal="' + (up || viewSeat === null ? (placed || "") : "") +
        '" data-revealed="' + (up ? "true" : "false") + '">' +
        '<div class="dhead">display ' + d + ' · pass <b>' + side.passes + "</b>" +
        (side.dummy ? ' <span class="mark" title="marked for a dummy goal">dummy</span>' : "") + "</div>" +
        body + '<div class="owner">' + owner + "</div></div>");
    }
    return out.join("");
  }

  function handsHtml(st) {
    if (!st.ring.length) return "";
    return st.ring.map(function (h) {
      var open = viewSeat === null || h === viewSeat;
      var hand = st.hands[h];
      var cards = open ? hand.map(function (c) { return cardHtml(c); }).join("") : hand.map(backHtml).join("");
      var goal = st.goals[h];
      var goalBit = goal !== null && (viewSeat === null || h === viewSeat)
        ? '<span class="chosen">goal ' + cardHtml(goal, "mini") + "</span>" : "";
      var moved = "";
      if (st.moves) {
        st.moves.forEach(function (m) {
          var see = viewSeat === null || viewSeat === h;
          if (m.to === h && see) moved += '<span class="got">received ' + m.cards.join(" ") + " from " + esc(holderName(m.by)) + "</span>";
          if (m.by === h && see) moved += '<span class="gave">passed ' + m.cards.join(" ") + "</span>";
        });
      }
      var score = h < n ? '<span class="score">total <b data-testid="score-' + h + '">' + st.scores[h] + "</b></span>" : "";
      var badges = "";
      if (h < n && st.forfeited[h]) badges += '<span class="badge fault">fault</span>';
      if (h < n && st.over && st.over.winners.indexOf(h) >= 0) badges += '<span class="badge win">winner</span>';
      return '<div class="hand-box' + (h >= n ? " dummy" : "") + (viewSeat === h ? " viewer" : "") +
        '" data-testid="hand-' + h + '" data-cards="' + (open ? hand.join(",") : "") + '" data-count="' +
        hand.length + '" data-hidden="' + (open ? "false" : "true") + '">' +
        '<div class="hhead"><span class="who">' + esc(holderName(h)) + "</span>" + badges + score + goalBit + "</div>" +
        '<div class="cards">' + cards + "</div>" + (moved ? '<div class="moves">' + moved + "</div>" : "") + "</div>";
    }).join('<span class="arrow" aria-hidden="true">→</span>');
  }

  function breakdownHtml(st) {
    var end = st.end;
    if (!end) return "";
    var seats = viewSeat === null ? names.map(function (_, i) { return i; }) : [viewSeat];
    var head = "<tr><th>goal</th>" + seats.map(function (x) { return "<th>" + esc(names[x]) + "</th>"; }).join("") + "</tr>";
    var rows = [];
    for (var d = 0; d < 4; d++) {
      var first = end.breakdown[seats[0]][d];
      var cells = seats.map(function (x) {
        var g = end.breakdown[x][d];
        return '<td data-testid="points-' + x + "-" + (d + 1) + '">' + g.top + " + " + g.bottom + " = <b>" + (g.top + g.bottom) + "</b></td>";
      });
      rows.push("<tr><th>display " + (d + 1) + " " + goalHtml(first.card) + "</th>" + cells.join("") + "</tr>");
    }
    rows.push("<tr><th>round " + end.round + "</th>" + seats.map(function (x) {
      return "<td><b>" + end.round_scores[x] + "</b> (total " + end.scores[x] + ")</td>";
    }).join("") + "</tr>");
    return "<caption>round " + end.round + ": points by goal (top + bottom)</caption><thead>" + head +
      "</thead><tbody>" + rows.join("") + "</tbody>";
  }

  function resultsHtml(st) {
    var head = "<tr><th>round</th>" + names.map(function (nm, i) { return "<th>" + i + " " + esc(nm) + "</th>"; }).join("") + "</tr>";
    var rows = st.history.map(function (x) {
      return '<tr data-round="' + x.round + '"><th><a href="#" data-goto="' + x.step + '">' + x.round + "</a></th>" +
        names.map(function (_, i) {
          return '<td data-testid="result-' + x.round + "-" + i + '">+' + x.rec.round_scores[i] + " → <b>" + x.rec.scores[i] + "</b></td>";
        }).join("") + "</tr>";
    });
    return "<thead>" + head + "</thead><tbody>" + rows.join("") + "</tbody>";
  }

  // ---- showing a step ---------------------------------------------------------------------
  var current = 0;
  function show(k) {
    k = Math.max(0, Math.min(last, k | 0));
    current = k;
    var st = steps[k];
    el.displays.innerHTML = displaysHtml(st);
    el.hands.innerHTML = handsHtml(st);
    el.breakdown.innerHTML = breakdownHtml(st);
    el.results.innerHTML = resultsHtml(st);
    el.round.textContent = st.round ? "round " + st.round : "before the deal";
    el.round.setAttribute("data-round", String(st.round));
    el.event.innerHTML = k ? describe(st.rec) : "game " + (header.match || 1) + " · " + n + " players";
    el.step.textContent = "step " + k + " / " + last;
    el.step.setAttribute("data-step", String(k));
    el.scrub.value = String(k);
    var items = el.log.children;
    for (var i = 0; i < items.length; i++) items[i].classList.toggle("current", i + 1 === k);
    if (k > 0 && items[k - 1] && items[k - 1].scrollIntoView) items[k - 1].scrollIntoView({ block: "nearest" });
    var at = roundStarts.filter(function (x) { return x.step <= k; }).pop();
    if (at) el.roundSelect.value = String(at.step);
  }

  var timer = null;
  function stop() { if (timer) { clearInterval(timer); timer = null; } el.play.textContent = "▶ play"; el.play.setAttribute("data-playing", "false"); }
  function play() {
    if (current >= last) show(0);
    el.play.textContent = "❚❚ pause"; el.play.setAttribute("data-playing", "true");
    timer = setInterval(function () { if (current >= last) stop(); else show(current + 1); }, 1000 / Number(el.speed.value));
  }
  function roundJump(dir) {
    var starts = roundStarts.map(function (x) { return x.step; });
    var target = dir > 0 ? starts.filter(function (s) { return s > current; })[0]
      : starts.filter(function (s) { return s < current; }).pop();
    show(target === undefined ? (dir > 0 ? last : 0) : target);
  }
  $("first").onclick = function () { stop(); show(0); };
  $("prev").onclick = function () { stop(); show(current - 1); };
  $("next").onclick = function () { stop(); show(current + 1); };
  $("last").onclick = function () { stop(); show(last); };
  el.play.onclick = function () { if (timer) stop(); else play(); };
  el.speed.onchange = function () { if (timer) { stop(); play(); } };
  el.scrub.oninput = function () { stop(); show(Number(el.scrub.value)); };
  el.roundSelect.onchange = function () { stop(); show(Number(el.roundSelect.value)); };
  el.view.onchange = function () {
    viewSeat = el.view.value === "all" ? null : Number(el.view.value);
    buildLog(); show(current);
  };
  el.log.onclick = function (e) {
    var li = e.target.closest ? e.target.closest("li[data-step]") : null;
    if (li) { stop(); show(Number(li.getAttribute("data-step"))); }
  };
  el.results.onclick = function (e) {
    var a = e.target.closest ? e.target.closest("a[data-goto]") : null;
    if (a) { e.preventDefault(); stop(); show(Number(a.getAttribute("data-goto"))); }
  };
  document.addEventListener("keydown", function (e) {
    if (e.target && (e.target.tagName === "SELECT" || e.target.tagName === "INPUT")) return;
    if (e.key === "ArrowRight") { stop(); show(current + 1); }
    else if (e.key === "ArrowLeft") { stop(); show(current - 1); }
    else if (e.key === "Home") { stop(); show(0); }
    else if (e.key === "End") { stop(); show(last); }
    else if (e.key === "PageDown") { stop(); roundJump(1); }
    else if (e.key === "PageUp") { stop(); roundJump(-1); }
    else if (e.key === " ") { e.preventDefault(); if (timer) stop(); else play(); }
    else return;
  });

  // #step=K&seat=S opens a given step as a given seat saw it (the report links faults this way)
  function fromHash() {
    var wanted = {};
    location.hash.replace(/^#/, "").split("&").forEach(function (part) {
      var kv = part.split("="); if (kv.length === 2) wanted[kv[0]] = kv[1];
    });
    if (wanted.seat !== undefined && /^[0-9]+$/.test(wanted.seat) && Number(wanted.seat) < n) {
      viewSeat = Number(wanted.seat); el.view.value = wanted.seat;
    }
    buildLog();
    show(wanted.step !== undefined && /^[0-9]+$/.test(wanted.step) ? Number(wanted.step) : current);
  }
  window.addEventListener("hashchange", fromHash);
  fromHash();
  window.llamaLlamaViewer = { show: show, last: last, steps: steps };
  document.body.setAttribute("data-ready", "true");
})();

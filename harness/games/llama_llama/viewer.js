// Llama Llama's renderer for the replay viewer (harness/html/viewer.js is the shell). It
// computes the table after every record once, then draws any step: the four displays with
// their goals (face down until revealed), every hand in passing order (or one seat's
// view), each pass, and the scoring breakdown of each goal at the end of a round.
// Step k is the state after record k of the replay file (the header is record 0).
window.gameViewer = function (ctx) {
  "use strict";
  var recs = ctx.recs, header = ctx.header, n = ctx.n, names = ctx.names, esc = ctx.esc, $ = ctx.$;
  var faces = {};
  header.options.card_set.cards.forEach(function (c) { faces[c.id] = c; });
  var sides = header.options.card_set.displays.map(function (d) {
    return n === 4 ? { passes: d.four_players.passes, dummy: false } : d.two_three_players;
  });
  var CSS =
    ".ll .centre {display: block; background: radial-gradient(ellipse at center, var(--felt) 0%, var(--felt-dark) 100%); color: #fff; border-radius: 14px; padding: 12px 16px; }\n" +
    ".ll .round {font-size: 16px; font-weight: 600; }\n" +
    ".ll .event {margin: 4px 0 8px; min-height: 1.4em; }\n" +
    ".ll .displays {display: grid; grid-template-columns: repeat(4, minmax(0, 1fr)); gap: 10px; }\n" +
    ".ll .display {background: rgba(255, 255, 255, .1); border-radius: 10px; padding: 6px; text-align: center; min-height: 120px; }\n" +
    ".ll .display.now {box-shadow: 0 0 0 3px var(--accent); }\n" +
    ".ll .dhead {font-size: 12px; opacity: .9; margin-bottom: 4px; }\n" +
    ".ll .mark {font-size: 10px; background: #fff; color: var(--ink); border-radius: 8px; padding: 0 5px; }\n" +
    ".ll .owner {font-size: 12px; margin-top: 4px; min-height: 1.2em; }\n" +
    ".ll .goal {display: inline-flex; flex-direction: column; gap: 2px; background: #fff; color: var(--ink); border-radius: 8px; padding: 6px 8px; min-width: 86px; box-shadow: 0 1px 3px rgba(0, 0, 0, .3); }\n" +
    ".ll .goal .top {font-weight: 800; font-size: 16px; }\n" +
    ".ll .goal .bottom {font-weight: 700; border-top: 1px solid #ddd; padding-top: 2px; }\n" +
    ".ll .goal .id {font-size: 11px; color: var(--muted); }\n" +
    ".ll .goal.back {min-height: 70px; background: repeating-linear-gradient(45deg, #2c3e73 0 4px, #3d5296 4px 8px); }\n" +
    ".ll .goal.empty {min-height: 70px; background: transparent; border: 2px dashed rgba(255, 255, 255, .4); box-shadow: none; }\n" +
    ".ll .goal.down.open {background: transparent; padding: 0; box-shadow: none; opacity: .55; }\n" +
    ".ll .hands {display: flex; flex-wrap: wrap; align-items: center; gap: 8px; margin-top: 10px; }\n" +
    ".ll .arrow {color: var(--muted); font-size: 20px; }\n" +
    ".ll .hand-box {background: #fff; border: 2px solid #ddd6c8; border-radius: 10px; padding: 6px 8px; min-width: 220px; }\n" +
    ".ll .hand-box.dummy {background: #efece4; border-style: dashed; }\n" +
    ".ll .hand-box.viewer {background: #fffbea; border-color: var(--accent); }\n" +
    ".ll .hhead {display: flex; gap: 8px; align-items: center; margin-bottom: 4px; flex-wrap: wrap; }\n" +
    ".ll .who {font-weight: 600; }\n" +
    ".ll .score {color: var(--muted); font-size: 12px; }\n" +
    ".ll .chosen {font-size: 12px; color: var(--muted); }\n" +
    ".ll .cards {display: flex; flex-wrap: wrap; gap: 3px; min-height: 44px; }\n" +
    ".ll .moves {font-size: 12px; margin-top: 4px; display: flex; flex-direction: column; }\n" +
    ".ll .moves .got {color: #2f7a3a; }\n" +
    ".ll .moves .gave {color: #9a5a12; }\n" +
    ".ll .badge {font-size: 11px; padding: 1px 6px; border-radius: 9px; background: #e6e1d6; }\n" +
    ".ll .badge.fault {background: var(--fault); color: #fff; }\n" +
    ".ll .badge.win {background: var(--accent); }\n" +
    ".ll .card {display: inline-flex; flex-direction: column; align-items: center; justify-content: center; width: 30px; height: 42px; border-radius: 6px; background: #fff; border: 2px solid #6b6b6b; font-weight: 800; font-size: 16px; line-height: 1; flex: none; }\n" +
    ".ll .card i {font-style: normal; font-size: 9px; font-weight: 500; color: var(--muted); }\n" +
    ".ll .card.back {background: repeating-linear-gradient(45deg, #2c3e73 0 4px, #3d5296 4px 8px); border-color: #fff; }\n" +
    ".ll .card.mini {width: 22px; height: 30px; font-size: 12px; }\n" +
    ".ll .card.lA {border-color: #d84343; }\n" +
    ".ll .card.lB {border-color: #ef8a17; }\n" +
    ".ll .card.lC {border-color: #d9b300; }\n" +
    ".ll .card.lD {border-color: #3c9a4a; }\n" +
    ".ll .card.lE {border-color: #2f76c9; }\n" +
    ".ll .card.lF {border-color: #8a4cc2; }\n" +
    ".ll .card.lG {border-color: #6b4a2b; }\n" +
    ".ll .card.lH {border-color: #1d232a; }\n" +
    ".ll .breakdown, .ll .results {border-collapse: collapse; width: 100%; font-size: 12px; font-variant-numeric: tabular-nums; margin-top: 10px; }\n" +
    ".ll .breakdown caption {text-align: left; font-weight: 600; padding: 4px 0; }\n" +
    ".ll .breakdown th, .ll .breakdown td, .ll .results th, .ll .results td {border-bottom: 1px solid #e4ded2; padding: 3px 6px; text-align: right; white-space: nowrap; }\n" +
    ".ll .breakdown th:first-child, .ll .results th:first-child {text-align: left; }\n" +
    ".ll .breakdown .goal {flex-direction: row; gap: 6px; padding: 1px 6px; min-width: 0; box-shadow: none; border: 1px solid #ddd; font-size: 12px; }\n" +
    ".ll .breakdown .goal .top {font-size: 12px; }\n" +
    ".ll .breakdown .goal .bottom {border: none; padding: 0; }\n";

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
  function knownDisplay(st, seat) {
    // from round 2 a player learns its goal's display, unless it was tied in totals
    if (st.round < 2 || !st.owners.length) return null;
    var same = st.before.filter(function (t) { return t === st.before[seat]; }).length;
    return same === 1 ? st.owners.indexOf(seat) + 1 : null;
  }

  function describe(r, viewSeat) {
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
    if (r.type === "round_end") {
      return "round " + r.round + " ends · " + names.map(function (nm, s) {
        return esc(nm) + " +" + r.round_scores[s] + " = " + r.scores[s];
      }).join(" · ");
    }
    return null; // fault and game_end: the shell's
  }

  // ---- the table ----------------------------------------------------------------------
  var style = document.createElement("style");
  style.textContent = CSS;
  document.head.appendChild(style);
  $("table").innerHTML = '<div class="ll">' +
    '<div class="centre">' +
    '<div id="round" data-testid="round" class="round"></div>' +
    '<div id="event" data-testid="event" class="event"></div>' +
    '<div id="displays" data-testid="displays" class="displays"></div></div>' +
    "<h2>Hands, in passing order (each passes to the next)</h2>" +
    '<div id="hands" data-testid="hands" class="hands"></div>' +
    '<table id="breakdown" data-testid="breakdown" class="breakdown"></table>' +
    "<h2>Rounds</h2>" +
    '<table id="results" data-testid="results" class="results"></table></div>';
  var el = {
    round: $("round"), event: $("event"), displays: $("displays"), hands: $("hands"),
    breakdown: $("breakdown"), results: $("results")
  };

  function displaysHtml(st, viewSeat) {
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

  function handsHtml(st, viewSeat) {
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

  function breakdownHtml(st, viewSeat) {
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
  function show(k, viewSeat, event) {
    var st = steps[Math.max(0, Math.min(last, k | 0))];
    el.displays.innerHTML = displaysHtml(st, viewSeat);
    el.hands.innerHTML = handsHtml(st, viewSeat);
    el.breakdown.innerHTML = breakdownHtml(st, viewSeat);
    el.results.innerHTML = resultsHtml(st);
    el.round.textContent = st.round ? "round " + st.round : "before the deal";
    el.round.setAttribute("data-round", String(st.round));
    el.event.innerHTML = event;
    el.event.className = "event " + (st.rec.type === "fault" ? "fault" : "");
  }

  return { rounds: roundStarts, describe: describe, show: show, reset: function () {} };
};

// L.L.A.M.A.'s renderer for the replay viewer (harness/html/viewer.js is the shell). It
// computes the table after every record once (O(records x seats)), then draws any step
// by touching only the elements that change, so stepping stays fast on 50-round games.
// Step k is the state after record k of the replay file (the header is record 0).
window.gameViewer = function (ctx) {
  "use strict";
  var recs = ctx.recs, header = ctx.header, n = ctx.n, names = ctx.names, esc = ctx.esc, $ = ctx.$;
  var LLAMA = 7;
  // a small llama drawn once and reused by every Llama card (<use href="#llama">)
  var SYMBOL =
    '<svg class="defs" width="0" height="0" aria-hidden="true"><defs>' +
    '<symbol id="llama" viewBox="0 0 32 32">' +
    '<ellipse cx="19" cy="18.5" rx="9" ry="5.5"/>' +
    '<path d="M7 20V8.5h5.2V17z"/>' +
    '<ellipse cx="9" cy="7.8" rx="4" ry="3"/>' +
    '<ellipse cx="5.2" cy="9" rx="3.2" ry="2"/>' +
    '<path d="M8 5.6 8.8 1.6 10.4 5.2zM10.6 5.4 12.3 2.2 12.8 6z"/>' +
    '<path d="M11 22h2.2v8H11zM14.6 22h2.2v8h-2.2zM21.2 22h2.2v8h-2.2zM24.8 22H27v8h-2.2z"/>' +
    '<ellipse cx="28.2" cy="16" rx="1.6" ry="2.6"/>' +
    '<circle cx="8.6" cy="7.2" r=".9" fill="#fff"/>' +
    "</symbol></defs></svg>";

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

  // ---- the table ------------------------------------------------------------------
  $("table").innerHTML = SYMBOL +
    '<div class="centre">' +
    '<div class="pile"><div class="label">discard</div><div id="discard" data-testid="discard"></div></div>' +
    '<div class="pile"><div class="label">stock</div>' +
    '<div class="card back big"><span id="stock-count" data-testid="stock-count"></span></div></div>' +
    '<div class="status">' +
    '<div id="round" data-testid="round" class="round"></div>' +
    '<div id="event" data-testid="event" class="event"></div>' +
    '<div id="stock-cards" data-testid="stock-cards" class="stock-cards"></div>' +
    "</div></div>" +
    '<div id="seats" class="seats"></div>' +
    "<h2>Rounds</h2>" +
    '<table id="results" data-testid="results" class="results"><thead></thead><tbody></tbody></table>';
  var el = {
    discard: $("discard"), stockCount: $("stock-count"), stockCards: $("stock-cards"),
    round: $("round"), event: $("event"), seats: $("seats"), results: $("results")
  };

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

  // ---- words ----------------------------------------------------------------------
  function actionText(r, viewSeat) {
    var what;
    if (r.action === "play") what = "plays " + cardName(r.card);
    else if (r.action === "draw") {
      // another seat's drawn card is hidden in a seat's view, as at a real table
      what = viewSeat === null || viewSeat === r.seat ? "draws " + cardName(r.drawn) : "draws";
    } else what = "quits";
    return what + (r.forced ? " (forced)" : "");
  }

  function describe(r, viewSeat) {
    if (r.type === "round_start") {
      return "round " + r.round + " · " + esc(names[r.first]) + " starts · discard " + cardName(r.discard) +
        " · stock " + r.stock.length;
    }
    if (r.type === "action") return esc(names[r.seat]) + " " + actionText(r, viewSeat);
    if (r.type === "round_end") return "round " + r.round + " ends · scores " + r.scores.join(" / ");
    return null;
  }

  // ---- showing a step -------------------------------------------------------------
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

  function show(k, viewSeat, event) {
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
      se.last.textContent = st.actor === seat && r.type === "action" ? actionText(r, viewSeat) : "";
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
    el.event.innerHTML = event;
    el.event.className = "event " + (r.type === "fault" ? "fault" : "");
    // results rows: rows are in step order, so only the ones between the old and new count change
    var want = st.ended;
    while (shownRows < want) resultRows[shownRows++].hidden = false;
    while (shownRows > want) resultRows[--shownRows].hidden = true;
  }

  return {
    rounds: roundStarts,
    describe: describe,
    show: show,
    reset: function () { shownHand = filled(null); }
  };
};

// Rock-paper-scissors for the replay viewer (harness/html/viewer.js is the shell): the
// throws of the round at a step, and the score.
window.gameViewer = function (ctx) {
  "use strict";
  var recs = ctx.recs, names = ctx.names, esc = ctx.esc, $ = ctx.$;
  var rounds = [], scores = [[0, 0]];
  recs.forEach(function (r, i) {
    var last = scores[scores.length - 1].slice();
    if (r.type === "throws") {
      rounds.push({ round: r.round, step: i + 1 });
      if (r.winner !== null && r.winner !== undefined) last[r.winner] += 1;
    }
    scores.push(last);
  });
  $("table").innerHTML = '<div class="rps"><div id="rps-event"></div><div id="rps-score"></div></div>';
  function describe(r) {
    if (r.type === "throws") return "round " + r.round + ": " + esc(names[0]) + " " + r.throws[0] + ", " + esc(names[1]) + " " + r.throws[1];
    if (r.type === "action") return esc(names[r.seat]) + " throws";
    return "";
  }
  return {
    rounds: rounds,
    describe: describe,
    show: function (k, viewSeat, event) {
      $("rps-event").innerHTML = event;
      var s = scores[k] || scores[scores.length - 1];
      $("rps-score").innerHTML = esc(names[0]) + " " + s[0] + " : " + s[1] + " " + esc(names[1]);
    },
    reset: function () {}
  };
};

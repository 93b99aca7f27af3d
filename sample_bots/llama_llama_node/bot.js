#!/usr/bin/env node
// A rule-based Llama Llama bot in plain Node.js (>= 18), protocol v1 envelope.
// No npm packages and no harness code: copy this folder anywhere and it still works.
//
// Goal phase: choose the card whose goal face scores best on the other cards.
// Pass phase: keep the cards that score best under the goals known so far (revealed and
// our own); among equals keep the letters the known goals name most. Ties: seeded random.
"use strict";

const readline = require("node:readline");

// Small seeded generator (mulberry32) so games are reproducible from game_start.seed.
function makeRng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function countLetters(letters) {
  const counts = new Map();
  for (const letter of letters) counts.set(letter, (counts.get(letter) || 0) + 1);
  return counts;
}

class Faces {
  constructor(cardSet) {
    this.cards = new Map();
    for (const card of cardSet.cards) {
      this.cards.set(card.id, {
        letter: card.letter,
        top: card.top.letter,
        topPoints: card.top.points,
        need: countLetters(card.bottom.letters),
        bottomPoints: card.bottom.points,
      });
    }
  }

  // The points a hand (card ids) scores under each goal (card ids) on its own.
  score(hand, goals) {
    const counts = countLetters(hand.map((id) => this.cards.get(id).letter));
    let total = 0;
    for (const goalId of goals) {
      const goal = this.cards.get(goalId);
      total += goal.topPoints * (counts.get(goal.top) || 0);
      let times = Infinity;
      for (const [letter, copies] of goal.need) {
        times = Math.min(times, Math.floor((counts.get(letter) || 0) / copies));
      }
      total += goal.bottomPoints * times;  // a card is never used twice in one combination
    }
    return total;
  }

  // How much the known goals care about a hand's letters (a tie-break for passing).
  interest(hand, goals) {
    let total = 0;
    for (const id of hand) {
      const letter = this.cards.get(id).letter;
      for (const goalId of goals) {
        const goal = this.cards.get(goalId);
        if (goal.top === letter) total += goal.topPoints;
        if (goal.need.has(letter)) total += 1;
      }
    }
    return total;
  }
}

function choose(turn, faces, rng) {
  const hand = turn.hand;
  let best = null;
  let bestKey = null;
  const better = (key) =>
    bestKey === null || key[0] > bestKey[0] || (key[0] === bestKey[0] &&
      (key[1] > bestKey[1] || (key[1] === bestKey[1] && key[2] > bestKey[2])));
  if (turn.phase === "goal") {
    for (const action of turn.legal) {
      const rest = hand.filter((id) => id !== action.card);
      const key = [faces.score(rest, [action.card]), faces.interest(rest, [action.card]), rng()];
      if (better(key)) { best = action; bestKey = key; }
    }
    return best;
  }
  const goals = turn.displays.filter((d) => d.goal !== null).map((d) => d.goal);
  if (turn.goal !== null && !goals.includes(turn.goal)) goals.push(turn.goal);
  for (const action of turn.legal) {
    const kept = hand.filter((id) => !action.cards.includes(id));
    const key = [faces.score(kept, goals), faces.interest(kept, goals), rng()];
    if (better(key)) { best = action; bestKey = key; }
  }
  return best;
}

function main() {
  let faces = null;
  let rng = makeRng(0);
  const send = (reply) => process.stdout.write(JSON.stringify(reply) + "\n");
  const rl = readline.createInterface({ input: process.stdin });
  rl.on("line", (line) => {
    const msg = JSON.parse(line);
    switch (msg.type) {
      case "hello":
        faces = new Faces(msg.options.card_set);
        send({ type: "hello", name: "ll-node", version: "1.0" });
        break;
      case "game_start":
        rng = makeRng(msg.seed);
        break;
      case "turn":
        send({ type: "action", id: msg.id, ...choose(msg, faces, rng) });
        break;
      case "shutdown":
        rl.close();
        process.exit(0);
        break;
      default:
        break; // round_start, goals_placed, reveal, passed, round_end, game_end
    }
  });
}

main();

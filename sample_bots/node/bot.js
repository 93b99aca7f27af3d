#!/usr/bin/env node
// A rule-based L.L.A.M.A. bot in plain Node.js (>= 18), protocol v1.
// No npm packages and no harness code: copy this folder anywhere and it still works.
//
// Rules: play a card if possible (the discard-top value first while we hold more of
// it, else the card whose last copy removes the most penalty); otherwise draw while
// the hand is expensive and the stock is not nearly empty, else quit.
"use strict";

const readline = require("node:readline");

const LLAMA = 7;
const nextCard = (card) => (card % 7) + 1;

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

function penalty(hand, komary) {
  const numbers = new Set(hand.filter((c) => c !== LLAMA));
  let total = 0;
  for (const n of numbers) total += n;
  const llamas = hand.filter((c) => c === LLAMA).length;
  return total + (komary ? 10 * llamas : llamas ? 10 : 0);
}

function choose(turn, rng, komary) {
  const hand = turn.hand;
  const legal = turn.legal;
  const plays = legal.filter((a) => a.action === "play");
  if (plays.length > 0) {
    let best = null;
    let bestKey = null;
    for (const a of plays) {
      const rest = hand.slice();
      rest.splice(rest.indexOf(a.card), 1);
      const copies = hand.filter((c) => c === a.card).length;
      // lower is better: keep the top while we hold duplicates of it, then cut penalty
      const key = [a.card === turn.discard && copies > 1 ? 0 : 1, penalty(rest, komary), rng()];
      if (bestKey === null || key[0] < bestKey[0] ||
          (key[0] === bestKey[0] && (key[1] < bestKey[1] ||
            (key[1] === bestKey[1] && key[2] < bestKey[2])))) {
        best = a;
        bestKey = key;
      }
    }
    return { action: "play", card: best.card };
  }
  const canDraw = legal.some((a) => a.action === "draw");
  const others = turn.players.filter((p, seat) => seat !== turn.seat && !p.quit);
  const danger = others.some((p) => p.cards <= 2);
  const limit = danger ? 9 : 6;
  if (canDraw && penalty(hand, komary) > limit && turn.stock >= 4) return { action: "draw" };
  return { action: "quit" };
}

let rng = makeRng(0);
let komary = false;
const rl = readline.createInterface({ input: process.stdin, terminal: false });

function send(obj) {
  // Node has no stdout buffer to flush: write() hands the line to the OS at once
  // (synchronously for pipes on Linux), one whole line per reply.
  process.stdout.write(JSON.stringify(obj) + "\n");
}

rl.on("line", (line) => {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch (err) {
    return; // not JSON: ignore it
  }
  if (msg === null || typeof msg !== "object") return;
  switch (msg.type) {
    case "hello":
      komary = msg.variant === "komary";
      send({ type: "hello", name: "node", version: "1.0" });
      break;
    case "game_start":
      rng = makeRng(Number(msg.seed) % 4294967296);
      break;
    case "turn":
      send({ type: "action", id: msg.id, ...choose(msg, rng, komary) });
      break;
    case "shutdown":
      rl.close();
      process.exit(0);
      break;
    default:
      break; // round_start, round_end, game_end, and any future message type
  }
});
rl.on("close", () => process.exit(0));

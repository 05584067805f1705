// A tiny engine in another language (Node), for tests of `palconf explain` and `replay`
// against a non-Python engine: it speaks protocol v1, loads a STATE and shows it, and
// refuses every action (`wrong-timing`). It implements no keyword and offers no `legal`.
"use strict";
const readline = require("readline");
let state = null;

function observed() {
  const players = {};
  const cards = {};
  for (const [name, p] of Object.entries(state.players)) {
    const view = { life: p.life, energy: p.energy || 0, hand: [], battle: [], structures: {}, graveyard: [] };
    for (const zone of ["hand", "battle", "graveyard"]) {
      for (const c of p[zone] || []) {
        view[zone].push(c.id);
        const inPlay = zone === "battle";
        cards[c.id] = {
          zone, owner: name, state: inPlay ? (c.state || "stand") : null,
          power: c.kind === "pal" ? c.power : null, strike: c.kind === "pal" ? (c.strike || 0) : null,
        };
      }
    }
    for (const s of p.structures || []) {
      view.structures[s.id] = (s.assigned || []).map((a) => a.id);
      cards[s.id] = { zone: "structures", owner: name, state: s.state || "stand", power: null, strike: null };
    }
    players[name] = view;
  }
  return {
    active: state.active || "A", turn: state.turn || 1, night: state.night || false,
    winner: null, step: "main", priority: null, attack: null, players, cards,
  };
}

const rl = readline.createInterface({ input: process.stdin });
rl.on("line", (line) => {
  const req = JSON.parse(line);
  let reply;
  if (req.cmd === "hello") {
    reply = { ok: true, engine: { name: "tiny-node", version: "1" }, keywords: [], commands: ["setup", "act", "observe"] };
  } else if (req.cmd === "setup") {
    state = req.state;
    reply = { ok: true };
  } else if (req.cmd === "observe") {
    reply = state ? { ok: true, state: observed() } : { ok: false, error: "no-game", message: "no setup yet" };
  } else if (req.cmd === "act") {
    reply = { ok: false, error: "illegal", reason: "wrong-timing", message: "tiny engine refuses everything" };
  } else if (req.cmd === "bye") {
    process.stdout.write(JSON.stringify({ ok: true }) + "\n");
    process.exit(0);
  } else {
    reply = { ok: false, error: "unknown-command", message: String(req.cmd) };
  }
  process.stdout.write(JSON.stringify(reply) + "\n");
});

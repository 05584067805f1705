#!/usr/bin/env node
// cleanroom.js: a second engine for the Pal card game (protocol v1), written in another language
// from the three specification texts alone (../shared: the rules text, base-rules.md,
// protocol.md) by a developer who read neither palconf's oracle nor its cases. It is kept as
// evidence, not as a reference: tests/test_cleanroom.py runs the whole suite on it and fuzzes
// it against the oracle. When the two disagree, a case may encode the oracle's habit rather
// than the text (that is how I-25 and I-26 came about, neither of which changed this file), or
// this engine may be wrong: decide from the rules text, and say in this header what changed.
// Changes since it was written: none but this header.
//
// (The author's own header follows.)
// indep-js: clean-room engine for the "Pal" card game, protocol v1 (JSON lines on stdin/stdout).
// Written from cr-1.00-s12-keywords.txt, base-rules.md and protocol.md only.
//
// AMBIGUITY notes (points the spec leaves open, and the reading chosen here):
// AMBIGUITY 1: A player's zone list (hand/battle/structures/graveyard) that is missing from a STATE is
//   not listed as required and has no stated default; it is taken as an empty list (not refused).
// AMBIGUITY 2: A `pump`/`damage`/`energy` effect without `amount` is refused as invalid-state (a missing
//   value "is not an integer"); no default amount is stated.
// AMBIGUITY 3: `power`, `strike`, `cost` are validated (integer >= 0) on any card that writes them,
//   whatever its kind (the text says so explicitly only for `slots`). Ability `cost` likewise, and
//   `quick` must be boolean on any ability that writes it.
// AMBIGUITY 4: Keyword texts that are "neither" (`Brave 0200`, `Brave -200`, `Taunt 2`, `Brave`) are
//   refused invalid-state when the name before the first space is a listed keyword; any other text
//   (`taunt`, `On Deploy`, `Flying`) is unsupported. A missing / non-string `op` or `when` is invalid-state.
//   When a STATE has several faults, the first met in document order decides the code.
// AMBIGUITY 5: `hello` without `protocol` is accepted; a `protocol` other than 1 is `unsupported`.
//   A JSON object without a string `cmd` is `unknown-command` (bad-request is only "not an object").
//   An empty input line is answered `bad-json`.
// AMBIGUITY 6: An action whose `player` is a string other than "A"/"B" is well-typed but names the wrong
//   player: `wrong-player` (after the timing check), not invalid-action.
// AMBIGUITY 7: `choose` is type-checked only on actions that take it (deploy, assign, play, activate,
//   attack); `discard` is type-checked whenever present, and ignored with "pay": "energy".
// AMBIGUITY 8: Interrupt does not make its card a Quick *event*: `play` of an Interrupt event in the quick
//   step needs the `Quick` keyword; using Interrupt is only the `interrupt` action. `play` of an event
//   with Interrupt in the main phase resolves its own effect normally. A card of any kind (Pal, event,
//   structure) carrying Interrupt may be used by the `interrupt` action.
// AMBIGUITY 9: Abilities triggered while others resolve (only Retaliate, when a combat Pal is put into the
//   graveyard by the other's Retaliate) are queued after those already pending (FIFO), in B-17 order
//   among themselves. No observable difference was found between FIFO and LIFO here.
// AMBIGUITY 10: `self` means the source card wherever it is in play: an assigned Pal or a structure is in
//   play, so `pump`/`rest`/`stand` self reach it (a structure's power stays null). Activated abilities
//   have no limit per turn and do not need the card to be standing.
// AMBIGUITY 11: The attack continues (block step, quick step) even if an On Attack ability removed the
//   attacker or the target; B-15 then finds no battle. The defender may still block then (B-13 only
//   requires a standing Pal of theirs in battle other than the target), and the blocker becomes the target.
// AMBIGUITY 12: Vigilance stands every card of the active player in play that has it, including
//   structures and assigned Pals. Start of turn stands all the new active player's cards in play.
// AMBIGUITY 13: An event is out of its hand (in no zone) from payment until it reaches the graveyard;
//   `self` of an event finds nothing. An Interrupt paid by discard puts both cards into the graveyard.
// AMBIGUITY 14: Breakthrough damage uses the attacker's printed strike (no effect changes strike), taken
//   before the battle moves; with strike 0 it deals 0 damage.
// AMBIGUITY 15: Unknown extra fields in STATE, cards, abilities and actions are ignored.
// AMBIGUITY 16: In LEGAL, choices are enumerated as ordered tuples (options^k, repetitions allowed:
//   nothing forbids choosing the same Pal for two abilities).
'use strict';

const readline = require('readline');

const ENGINE = { name: 'indep-js', version: '1.0.0' };
const KEYWORD_IDS = ['quick', 'on-deploy', 'on-attack', 'on-assign', 'brave', 'serious', 'interrupt',
  'vigilance', 'taunt', 'stealth', 'retaliate', 'nocturnal', 'breakthrough', 'assault'];
const COMMANDS = ['hello', 'setup', 'act', 'observe', 'legal', 'bye'];
const KW_NUM = new Set(['Brave', 'Serious']);
const KW_PLAIN = new Set(['Quick', 'Interrupt', 'Vigilance', 'Taunt', 'Stealth', 'Retaliate', 'Nocturnal',
  'Breakthrough', 'Assault']);
const OPS = new Set(['pump', 'damage', 'destroy', 'rest', 'stand', 'night', 'energy']);
const WHENS = new Set(['deploy', 'attack', 'assign', 'activate']);
const ZONES = ['hand', 'battle', 'structures', 'graveyard'];
const ACTIONS = new Set(['deploy', 'assign', 'play', 'activate', 'attack', 'block', 'interrupt', 'pass', 'end-turn']);
const TAKES_CHOOSE = new Set(['deploy', 'assign', 'play', 'activate', 'attack']);
const IN_PLAY = new Set(['battle', 'structures', 'assigned']);

const isObj = (x) => x !== null && typeof x === 'object' && !Array.isArray(x);
const isInt = (x) => typeof x === 'number' && Number.isInteger(x);
const has = (o, k) => Object.prototype.hasOwnProperty.call(o, k);
const other = (p) => (p === 'A' ? 'B' : 'A');
const byText = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
const sorted = (arr) => arr.slice().sort(byText);
const log = (...a) => { try { process.stderr.write(a.join(' ') + '\n'); } catch (e) { /* ignore */ } };

// ---------------------------------------------------------------- setup validation (P-state)

class SetupError extends Error {
  constructor(code, message) { super(message); this.code = code; }
}
const invalid = (m) => { throw new SetupError('invalid-state', m); };
const unsupported = (m) => { throw new SetupError('unsupported', m); };

function parseKeyword(t) {
  if (typeof t !== 'string') invalid('a keyword is not a string');
  if (KW_PLAIN.has(t)) return { name: t, n: 0 };
  if (KW_NUM.has(t)) invalid(`keyword ${t} is written without its number`);
  const sp = t.indexOf(' ');
  if (sp > 0) {
    const name = t.slice(0, sp);
    const rest = t.slice(sp + 1);
    if (KW_NUM.has(name)) {
      if (/^(0|[1-9][0-9]*)$/.test(rest)) return { name, n: Number(rest) };
      invalid(`keyword ${JSON.stringify(t)}: bad number`);
    }
    if (KW_PLAIN.has(name)) invalid(`keyword ${name} is written with a number`);
  }
  unsupported(`unknown keyword ${JSON.stringify(t)}`);
}

function validateEffect(e, where) {
  if (!isObj(e)) invalid(`${where}: effect is not an object`);
  if (typeof e.op !== 'string') invalid(`${where}: effect op missing or not a string`);
  if (!OPS.has(e.op)) unsupported(`${where}: unknown effect op ${JSON.stringify(e.op)}`);
  const out = { op: e.op };
  switch (e.op) {
    case 'pump':
      if (e.target !== 'self' && e.target !== 'chosen') invalid(`${where}: pump needs target self or chosen`);
      if (!isInt(e.amount)) invalid(`${where}: pump amount is not an integer`);
      out.target = e.target; out.amount = e.amount; break;
    case 'damage':
      if (e.player !== 'opponent' && e.player !== 'self') invalid(`${where}: damage needs player opponent or self`);
      if (!isInt(e.amount) || e.amount < 0) invalid(`${where}: damage amount is not an integer >= 0`);
      out.player = e.player; out.amount = e.amount; break;
    case 'destroy':
      if (e.target !== 'chosen') invalid(`${where}: destroy needs target chosen`);
      out.target = 'chosen'; break;
    case 'rest': case 'stand':
      if (e.target !== 'self' && e.target !== 'chosen') invalid(`${where}: ${e.op} needs target self or chosen`);
      out.target = e.target; break;
    case 'night':
      if (typeof e.value !== 'boolean') invalid(`${where}: night needs a boolean value`);
      out.value = e.value; break;
    case 'energy':
      if (!isInt(e.amount) || e.amount < 0) invalid(`${where}: energy amount is not an integer >= 0`);
      out.amount = e.amount; break;
    default: break;
  }
  return out;
}

function validateAbility(ab, where) {
  if (!isObj(ab)) invalid(`${where}: ability is not an object`);
  if (typeof ab.when !== 'string') invalid(`${where}: ability when missing or not a string`);
  if (!WHENS.has(ab.when)) unsupported(`${where}: unknown ability when ${JSON.stringify(ab.when)}`);
  if (has(ab, 'quick') && typeof ab.quick !== 'boolean') invalid(`${where}: quick is not a boolean`);
  if (has(ab, 'cost') && (!isInt(ab.cost) || ab.cost < 0)) invalid(`${where}: ability cost is not an integer >= 0`);
  if (!has(ab, 'effect')) invalid(`${where}: ability has no effect`);
  const effect = validateEffect(ab.effect, where);
  return { when: ab.when, effect, quick: has(ab, 'quick') ? ab.quick : false, cost: has(ab, 'cost') ? ab.cost : 0 };
}

// Validates one card; returns the internal card (and registers assigned Pals). zone: hand|battle|structures|graveyard|assigned
function validateCard(c, zone, owner, ctx) {
  if (!isObj(c)) invalid(`a card in ${owner}.${zone} is not an object`);
  if (!has(c, 'id')) invalid('a card has no id');
  if (typeof c.id !== 'string' || c.id === '') invalid('a card id is not a non-empty string');
  if (c.id === 'master') invalid('a card id may not be "master"');
  if (ctx.ids.has(c.id)) invalid(`duplicate card id ${JSON.stringify(c.id)}`);
  ctx.ids.add(c.id);
  const w = `card ${JSON.stringify(c.id)}`;
  if (!has(c, 'kind')) invalid(`${w}: kind missing`);
  if (c.kind !== 'pal' && c.kind !== 'event' && c.kind !== 'structure') invalid(`${w}: bad kind`);
  if (has(c, 'name') && typeof c.name !== 'string') invalid(`${w}: name is not a string`);
  if (c.kind === 'pal' && !has(c, 'power')) invalid(`${w}: a Pal needs power`);
  for (const f of ['power', 'strike', 'cost', 'slots']) {
    if (has(c, f) && (!isInt(c[f]) || c[f] < 0)) invalid(`${w}: ${f} is not an integer >= 0`);
  }
  if (has(c, 'state') && c.state !== 'stand' && c.state !== 'rest') invalid(`${w}: state is not stand or rest`);
  let kw = [];
  if (has(c, 'keywords')) {
    if (!Array.isArray(c.keywords)) invalid(`${w}: keywords is not a list`);
    kw = c.keywords.map(parseKeyword);
  }
  let abilities = [];
  if (has(c, 'abilities')) {
    if (!Array.isArray(c.abilities)) invalid(`${w}: abilities is not a list`);
    abilities = c.abilities.map((ab, i) => validateAbility(ab, `${w} ability ${i}`));
  }
  let effect = null;
  if (c.kind === 'event') {
    if (!has(c, 'effect')) invalid(`${w}: an event needs an effect`);
    effect = validateEffect(c.effect, w);
  } else if (has(c, 'effect')) invalid(`${w}: only an event has an effect`);
  if (zone === 'battle' && c.kind !== 'pal') invalid(`${w}: only Pals may be in battle`);
  if (zone === 'assigned' && c.kind !== 'pal') invalid(`${w}: only Pals may be assigned`);
  if (zone === 'structures' && c.kind !== 'structure') invalid(`${w}: only structures may be in structures`);
  const slots = has(c, 'slots') ? c.slots : 1;
  const card = {
    id: c.id, kind: c.kind, owner, zone,
    state: (zone === 'battle' || zone === 'structures' || zone === 'assigned') && has(c, 'state') ? c.state : 'stand',
    power: c.kind === 'pal' ? c.power : null,
    strike: has(c, 'strike') ? c.strike : 0,
    cost: has(c, 'cost') ? c.cost : 0,
    slots, kw, abilities, effect, assigned: [], host: null, pumps: [],
  };
  if (has(c, 'assigned')) {
    if (c.kind !== 'structure') invalid(`${w}: only a structure has assigned`);
    if (!Array.isArray(c.assigned)) invalid(`${w}: assigned is not a list`);
    if (zone !== 'structures' && c.assigned.length > 0) invalid(`${w}: a structure out of play holds Pals`);
    for (const a of c.assigned) {
      const ac = validateCard(a, 'assigned', owner, ctx);
      ac.host = card.id;
      card.assigned.push(ac.id);
    }
    if (card.assigned.length > slots) invalid(`${w}: more assigned Pals than slots`);
  }
  ctx.cards.set(card.id, card);
  return card;
}

function buildGame(s) {
  if (!isObj(s)) invalid('STATE is not an object');
  if (!has(s, 'players')) invalid('players missing');
  if (!isObj(s.players)) invalid('players is not an object');
  const keys = Object.keys(s.players);
  if (keys.length !== 2 || !has(s.players, 'A') || !has(s.players, 'B')) invalid('players must have exactly A and B');
  if (has(s, 'active') && s.active !== 'A' && s.active !== 'B') invalid('active is not A or B');
  if (has(s, 'turn') && (!isInt(s.turn) || s.turn < 1)) invalid('turn is not an integer >= 1');
  if (has(s, 'night') && typeof s.night !== 'boolean') invalid('night is not a boolean');
  const ctx = { ids: new Set(), cards: new Map() };
  const players = {};
  for (const P of ['A', 'B']) {
    const p = s.players[P];
    if (!isObj(p)) invalid(`player ${P} is not an object`);
    if (!has(p, 'life')) invalid(`player ${P}: life missing`);
    if (!isInt(p.life) || p.life < 1) invalid(`player ${P}: life is not an integer >= 1`);
    if (has(p, 'energy') && (!isInt(p.energy) || p.energy < 0)) invalid(`player ${P}: energy is not an integer >= 0`);
    const pl = { life: p.life, energy: has(p, 'energy') ? p.energy : 0, hand: [], battle: [], structures: [], graveyard: [] };
    for (const z of ZONES) {
      if (!has(p, z)) continue; // AMBIGUITY 1
      if (!Array.isArray(p[z])) invalid(`player ${P}: ${z} is not a list`);
      for (const c of p[z]) pl[z].push(validateCard(c, z, P, ctx).id);
    }
    players[P] = pl;
  }
  return {
    active: has(s, 'active') ? s.active : 'A',
    turn: has(s, 'turn') ? s.turn : 1,
    night: has(s, 'night') ? s.night : false,
    winner: null, step: 'main', priority: null, attack: null, passes: 0,
    players, cards: ctx.cards,
  };
}

function cloneGame(g) {
  const cards = new Map();
  for (const [k, c] of g.cards) cards.set(k, { ...c, pumps: c.pumps.slice(), assigned: c.assigned.slice() });
  const players = {};
  for (const P of ['A', 'B']) {
    const p = g.players[P];
    players[P] = { life: p.life, energy: p.energy, hand: p.hand.slice(), battle: p.battle.slice(),
      structures: p.structures.slice(), graveyard: p.graveyard.slice() };
  }
  return { ...g, attack: g.attack ? { ...g.attack } : null, players, cards };
}

// ---------------------------------------------------------------- game helpers

const card = (g, id) => (typeof id === 'string' && g.cards.has(id) ? g.cards.get(id) : null);
const inPlay = (c) => !!c && IN_PLAY.has(c.zone);
const inBattle = (g, id) => { const c = card(g, id); return !!c && c.zone === 'battle'; };
const kwCount = (c, name) => c.kw.reduce((n, k) => n + (k.name === name ? 1 : 0), 0);
const hasKw = (c, name) => kwCount(c, name) > 0;
function cardIn(g, P, zone, id) {
  const c = card(g, id);
  return c && c.owner === P && c.zone === zone ? c : null;
}
function ownInPlay(g, P, id) {
  const c = card(g, id);
  return c && c.owner === P && inPlay(c) ? c : null;
}
function power(g, c) {
  if (c.kind !== 'pal') return null;
  if (!inPlay(c)) return c.power;
  let t = c.power;
  if (g.night) t += 300 * kwCount(c, 'Nocturnal');
  for (const p of c.pumps) t += p;
  return Math.max(0, t); // B-18: floor on the total
}
const palsInBattle = (g) => g.players.A.battle.concat(g.players.B.battle);

function removeFromZone(g, c) {
  if (c.zone === 'assigned') {
    const h = g.cards.get(c.host);
    if (h) h.assigned = h.assigned.filter((x) => x !== c.id);
    c.host = null;
  } else if (c.zone !== 'limbo') {
    const arr = g.players[c.owner][c.zone];
    const i = arr.indexOf(c.id);
    if (i >= 0) arr.splice(i, 1);
  }
  c.zone = 'limbo';
}
function putInZone(g, c, zone) {
  g.players[c.owner][zone].push(c.id);
  c.zone = zone;
}
function toGraveyard(g, c) {
  const wasInPlay = inPlay(c);
  removeFromZone(g, c);
  c.state = 'stand';
  if (wasInPlay) c.pumps = []; // B-10: leaving play ends effects on the card
  putInZone(g, c, 'graveyard');
}
function gameOver(g, winner) {
  g.winner = winner; g.step = 'over'; g.priority = null; g.attack = null; g.passes = 0;
}
function loseLife(g, P, n) {
  g.players[P].life -= n;
  if (!g.winner && g.players[P].life <= 0) gameOver(g, other(P)); // B-20
}

// ---------------------------------------------------------------- triggers and effects

const effectNeedsChoice = (e) => (e.op === 'pump' || e.op === 'destroy' || e.op === 'rest' || e.op === 'stand') && e.target === 'chosen';

// B-17: a card's keyword abilities first (in the order written), then its `abilities` (in order).
function cardTriggers(c, when) {
  const out = [];
  for (const k of c.kw) {
    if (when === 'attack' && k.name === 'Brave') out.push({ type: 'pump-self', src: c.id, controller: c.owner, amount: k.n, needs: false });
    if (when === 'assign' && k.name === 'Serious') out.push({ type: 'pump-chosen', src: c.id, controller: c.owner, amount: k.n, needs: true });
  }
  for (const ab of c.abilities) {
    if (ab.when === when) out.push({ type: 'effect', effect: ab.effect, src: c.id, controller: c.owner, needs: effectNeedsChoice(ab.effect) });
  }
  return out;
}

// B-17: choices checked right after the action's own move, before anything resolves.
function bindChoices(g, trigs, choose) {
  const options = palsInBattle(g);
  let k = 0;
  for (const t of trigs) {
    if (!t.needs) continue;
    if (options.length === 0) { t.chosen = null; continue; } // no legal option: no entry, does nothing
    k++;
  }
  if (k === 0) return null;
  let i = 0;
  for (const t of trigs) {
    if (!t.needs || options.length === 0) continue;
    const e = choose[i++];
    if (e === undefined) return { reason: 'illegal-target', message: `choose entry ${i - 1} missing`, choiceInfo: { k, options } };
    if (!options.includes(e)) return { reason: 'illegal-target', message: `choose entry ${JSON.stringify(e)} is not a Pal in a battle area`, choiceInfo: { k, options } };
    t.chosen = e;
  }
  return null;
}

function selfTarget(g, src) {
  const c = src ? card(g, src) : null;
  return c && inPlay(c) ? c : null;
}
function chosenTarget(g, id) {
  const c = id ? card(g, id) : null;
  return c && c.zone === 'battle' ? c : null;
}

function applyEffect(g, e, controller, src, chosen) {
  switch (e.op) {
    case 'pump': {
      const t = e.target === 'self' ? selfTarget(g, src) : chosenTarget(g, chosen);
      if (t) t.pumps.push(e.amount);
      break;
    }
    case 'damage':
      loseLife(g, e.player === 'self' ? controller : other(controller), e.amount);
      break;
    case 'destroy': {
      const t = chosenTarget(g, chosen);
      if (t) toGraveyard(g, t);
      break;
    }
    case 'rest': case 'stand': {
      const t = e.target === 'self' ? selfTarget(g, src) : chosenTarget(g, chosen);
      if (t) t.state = e.op;
      break;
    }
    case 'night': g.night = e.value; break;
    case 'energy': g.players[controller].energy += e.amount; break;
    default: break;
  }
}

function resolveQueue(g, queue) {
  while (queue.length > 0 && !g.winner) {
    const t = queue.shift();
    switch (t.type) {
      case 'pump-self': { const c = selfTarget(g, t.src); if (c) c.pumps.push(t.amount); break; }
      case 'pump-chosen': { const c = chosenTarget(g, t.chosen); if (c) c.pumps.push(t.amount); break; }
      case 'effect': applyEffect(g, t.effect, t.controller, t.src, t.chosen); break;
      case 'retaliate': {
        const o = card(g, t.opp);
        if (o && o.zone === 'battle') { // I-2: a Pal already in the graveyard is not moved again
          toGraveyard(g, o);
          // retaliate.1: put into the graveyard while that attack's triggers resolve -> its Retaliate triggers
          for (const k of o.kw) if (k.name === 'Retaliate') queue.push({ type: 'retaliate', src: o.id, opp: t.src });
        }
        break;
      }
      case 'breakthrough': loseLife(g, t.victim, t.strike); break;
      default: break;
    }
  }
}

// B-15 / B-16
function doBattle(g) {
  const at = g.attack;
  const P = g.active;
  const D = other(P);
  const X = card(g, at.attacker);
  if (X && X.zone === 'battle') {
    if (at.target === 'master') {
      loseLife(g, D, X.strike);
    } else {
      const Y = card(g, at.target);
      if (Y && Y.zone === 'battle') {
        const px = power(g, X);
        const py = power(g, Y);
        const xDies = px <= py;
        const yDies = py <= px;
        const lastStrike = X.strike;
        if (xDies) toGraveyard(g, X);
        if (yDies) toGraveyard(g, Y);
        const queue = [];
        // B-17: active player's (the attacker's) triggers first; keywords in the order written.
        const sides = [[X, xDies, Y], [Y, yDies, X]];
        if (X.owner !== P) sides.reverse();
        for (const [c, dies, opp] of sides) {
          for (const k of c.kw) {
            if (k.name === 'Retaliate' && dies) queue.push({ type: 'retaliate', src: c.id, opp: opp.id });
            if (k.name === 'Breakthrough' && c === X && yDies) queue.push({ type: 'breakthrough', src: c.id, victim: Y.owner, strike: lastStrike });
          }
        }
        resolveQueue(g, queue);
      }
    }
  }
  if (!g.winner) { g.attack = null; g.step = 'main'; g.priority = null; g.passes = 0; }
}

function afterQuickAction(g, wasQuick) {
  if (!wasQuick || g.winner || g.step !== 'quick') return;
  g.priority = other(g.priority);
  g.passes = 0;
}

// ---------------------------------------------------------------- actions (P-reasons order)

const R = (reason, message) => ({ reason, message });

function doAct(g, a) {
  if (g.winner) return R('game-over', 'the game is over');
  // invalid-action: malformed
  if (!isObj(a)) return R('invalid-action', 'action is not an object');
  const d = a.do;
  if (typeof d !== 'string' || !ACTIONS.has(d)) return R('invalid-action', 'unknown or missing do');
  if (typeof a.player !== 'string') return R('invalid-action', 'player missing or not a string');
  const str = (f) => typeof a[f] === 'string';
  switch (d) {
    case 'deploy': case 'play':
      if (!str('card')) return R('invalid-action', 'card missing or not a string'); break;
    case 'assign':
      if (!str('card')) return R('invalid-action', 'card missing or not a string');
      if (!str('structure')) return R('invalid-action', 'structure missing or not a string'); break;
    case 'activate':
      if (!str('card')) return R('invalid-action', 'card missing or not a string');
      if (!isInt(a.ability)) return R('invalid-action', 'ability missing or not an integer'); break;
    case 'attack':
      if (!str('attacker')) return R('invalid-action', 'attacker missing or not a string');
      if (!str('target')) return R('invalid-action', 'target missing or not a string'); break;
    case 'block':
      if (!str('blocker')) return R('invalid-action', 'blocker missing or not a string'); break;
    case 'interrupt':
      if (!str('card')) return R('invalid-action', 'card missing or not a string');
      if (a.pay !== 'energy' && a.pay !== 'discard') return R('invalid-action', 'pay must be energy or discard');
      if (has(a, 'discard') && !str('discard')) return R('invalid-action', 'discard is not a string'); break;
    default: break;
  }
  if (TAKES_CHOOSE.has(d) && has(a, 'choose')) {
    if (!Array.isArray(a.choose) || !a.choose.every((x) => typeof x === 'string')) return R('invalid-action', 'choose is not a list of strings');
  }
  const choose = TAKES_CHOOSE.has(d) && Array.isArray(a.choose) ? a.choose : [];

  // wrong-timing
  const step = g.step;
  const okSteps = {
    deploy: ['main'], assign: ['main'], attack: ['main'], 'end-turn': ['main'],
    play: ['main', 'quick'], activate: ['main', 'quick'],
    block: ['block'], pass: ['block', 'quick'], interrupt: ['quick'],
  }[d];
  if (!okSteps.includes(step)) return R('wrong-timing', `${d} is not possible in the ${step} step`);
  // wrong-player
  const P = a.player;
  if (step === 'main') {
    if (P !== g.active) return R('wrong-player', 'not the active player');
  } else {
    if (P !== g.priority) return R('wrong-player', 'not the player with priority');
    if (d === 'interrupt' && P === g.active) return R('wrong-player', 'Interrupt on one\'s own attack');
  }
  // wrong-timing (again): non-Quick things in the quick step
  if (step === 'quick') {
    if (d === 'play') {
      const c = cardIn(g, P, 'hand', a.card);
      if (c && !(c.kind === 'event' && hasKw(c, 'Quick'))) return R('wrong-timing', 'not a Quick event');
    }
    if (d === 'activate') {
      const c = ownInPlay(g, P, a.card);
      if (c && a.ability >= 0 && a.ability < c.abilities.length) {
        const ab = c.abilities[a.ability];
        if (!(ab.when === 'activate' && ab.quick === true)) return R('wrong-timing', 'not a Quick activated ability');
      }
    }
  }
  const pl = g.players[P];

  switch (d) {
    case 'deploy': {
      const c = cardIn(g, P, 'hand', a.card);
      if (!c) return R('not-found', 'card not in your hand');
      if (c.kind === 'event') return R('wrong-kind', 'an event is played, not deployed');
      if (c.cost > pl.energy) return R('cannot-pay', 'not enough energy');
      pl.energy -= c.cost;
      removeFromZone(g, c);
      c.state = 'stand'; c.pumps = []; c.assigned = [];
      putInZone(g, c, c.kind === 'pal' ? 'battle' : 'structures');
      const trig = cardTriggers(c, 'deploy');
      const e = bindChoices(g, trig, choose);
      if (e) return e;
      resolveQueue(g, trig);
      return null;
    }
    case 'assign': {
      const c = cardIn(g, P, 'battle', a.card);
      if (!c) return R('not-found', 'card is not your Pal in battle');
      if (c.state !== 'stand') return R('cannot-assign', 'the Pal is rested');
      const s = cardIn(g, P, 'structures', a.structure);
      if (!s) return R('cannot-assign', 'not a structure of yours in play');
      if (s.assigned.length >= s.slots) return R('cannot-assign', 'no free slot');
      removeFromZone(g, c);
      c.zone = 'assigned'; c.host = s.id; s.assigned.push(c.id);
      const trig = cardTriggers(c, 'assign');
      const e = bindChoices(g, trig, choose);
      if (e) return e;
      resolveQueue(g, trig);
      return null;
    }
    case 'play': {
      const c = cardIn(g, P, 'hand', a.card);
      if (!c) return R('not-found', 'card not in your hand');
      if (c.kind !== 'event') return R('wrong-kind', 'only an event is played');
      if (c.cost > pl.energy) return R('cannot-pay', 'not enough energy');
      pl.energy -= c.cost;
      removeFromZone(g, c);
      const trig = [{ type: 'effect', effect: c.effect, src: null, controller: P, needs: effectNeedsChoice(c.effect) }];
      const e = bindChoices(g, trig, choose);
      if (e) return e;
      resolveQueue(g, trig);
      putInZone(g, c, 'graveyard'); // B-20: still goes to the graveyard
      afterQuickAction(g, step === 'quick');
      return null;
    }
    case 'activate': {
      const c = ownInPlay(g, P, a.card);
      if (!c) return R('not-found', 'card is not yours in play');
      if (a.ability < 0 || a.ability >= c.abilities.length) return R('not-found', 'no ability at that index');
      const ab = c.abilities[a.ability];
      if (ab.when !== 'activate') return R('wrong-kind', 'not an activated ability');
      if (ab.cost > pl.energy) return R('cannot-pay', 'not enough energy');
      pl.energy -= ab.cost;
      const trig = [{ type: 'effect', effect: ab.effect, src: c.id, controller: P, needs: effectNeedsChoice(ab.effect) }];
      const e = bindChoices(g, trig, choose);
      if (e) return e;
      resolveQueue(g, trig);
      afterQuickAction(g, step === 'quick');
      return null;
    }
    case 'attack': {
      const c = cardIn(g, P, 'battle', a.attacker);
      if (!c) return R('not-found', 'attacker is not your Pal in battle');
      if (c.state !== 'stand') return R('cannot-attack', 'the attacker is rested');
      const D = other(P);
      const assault = hasKw(c, 'Assault');
      const legalPal = (t) => t.zone === 'battle' && t.owner === D && (t.state === 'rest' || assault);
      if (a.target !== 'master') {
        const t = card(g, a.target);
        if (!t || !legalPal(t)) return R('illegal-target', 'target is not a legal attack target');
      }
      const taunts = g.players[D].battle.map((id) => g.cards.get(id)).filter((t) => hasKw(t, 'Taunt') && legalPal(t));
      if (taunts.length > 0 && !taunts.some((t) => t.id === a.target)) return R('taunt-required', 'a Taunt Pal must be targeted');
      c.state = 'rest';
      g.attack = { attacker: c.id, target: a.target, blocked: false };
      g.step = 'block'; g.priority = D; g.passes = 0;
      const trig = cardTriggers(c, 'attack');
      const e = bindChoices(g, trig, choose);
      if (e) return e;
      resolveQueue(g, trig);
      return null;
    }
    case 'block': {
      const att = card(g, g.attack.attacker);
      if (att && hasKw(att, 'Stealth')) return R('cannot-block', 'the attacker has Stealth');
      const b = cardIn(g, P, 'battle', a.blocker);
      if (!b || b.state !== 'stand' || b.id === g.attack.target) return R('cannot-block', 'not a standing Pal of yours in battle other than the target');
      b.state = 'rest';
      g.attack.target = b.id; g.attack.blocked = true;
      g.step = 'quick'; g.priority = P; g.passes = 0;
      return null;
    }
    case 'interrupt': {
      const c = cardIn(g, P, 'hand', a.card);
      if (!c) return R('not-found', 'card not in your hand');
      if (!hasKw(c, 'Interrupt')) return R('wrong-kind', 'card has no Interrupt');
      if (a.pay === 'energy') {
        if (pl.energy < 1) return R('cannot-pay', 'not enough energy');
        pl.energy -= 1;
        toGraveyard(g, c);
      } else {
        const x = typeof a.discard === 'string' ? cardIn(g, P, 'hand', a.discard) : null;
        if (!x || x.id === c.id) return R('cannot-pay', 'discard is not another card in your hand');
        toGraveyard(g, c);
        toGraveyard(g, x);
      }
      g.attack = null; g.step = 'main'; g.priority = null; g.passes = 0; // nullified (B-14, I-6)
      return null;
    }
    case 'pass': {
      if (step === 'block') {
        g.step = 'quick'; g.priority = other(g.active); g.passes = 0;
      } else if (g.passes >= 1) {
        doBattle(g);
      } else {
        g.passes = 1; g.priority = other(g.priority);
      }
      return null;
    }
    case 'end-turn': {
      // B-6 end: Vigilance first, then "until end of turn" effects end
      for (const c of g.cards.values()) {
        if (c.owner === P && inPlay(c) && hasKw(c, 'Vigilance')) c.state = 'stand';
      }
      for (const c of g.cards.values()) c.pumps = [];
      g.active = other(P);
      g.turn += 1;
      for (const c of g.cards.values()) if (c.owner === g.active && inPlay(c)) c.state = 'stand';
      g.step = 'main'; g.priority = null; g.attack = null; g.passes = 0;
      return null;
    }
    default:
      return R('invalid-action', 'unknown do');
  }
}

// ---------------------------------------------------------------- observe / legal

function observe(g) {
  const players = {};
  for (const P of ['A', 'B']) {
    const p = g.players[P];
    players[P] = {
      life: p.life, energy: p.energy,
      hand: sorted(p.hand), battle: sorted(p.battle),
      structures: Object.fromEntries(sorted(p.structures).map((s) => [s, sorted(g.cards.get(s).assigned)])),
      graveyard: sorted(p.graveyard),
    };
  }
  const cards = Object.fromEntries(sorted([...g.cards.keys()]).map((id) => {
    const c = g.cards.get(id);
    return [id, {
      zone: c.zone, owner: c.owner,
      state: inPlay(c) ? c.state : null,
      power: power(g, c),
      strike: c.kind === 'pal' ? c.strike : null,
    }];
  }));
  return {
    active: g.active, turn: g.turn, night: g.night, winner: g.winner,
    step: g.step, priority: g.priority,
    attack: g.attack ? { attacker: g.attack.attacker, target: g.attack.target, blocked: g.attack.blocked } : null,
    players, cards,
  };
}

function legal(g) {
  if (g.winner) return [];
  const cands = [];
  for (const P of ['A', 'B']) {
    const p = g.players[P];
    const O = g.players[other(P)];
    cands.push({ do: 'end-turn', player: P }, { do: 'pass', player: P });
    for (const id of p.hand) {
      cands.push({ do: 'deploy', player: P, card: id }, { do: 'play', player: P, card: id });
      cands.push({ do: 'interrupt', player: P, card: id, pay: 'energy' });
      for (const x of p.hand) if (x !== id) cands.push({ do: 'interrupt', player: P, card: id, pay: 'discard', discard: x });
    }
    for (const id of p.battle) {
      for (const s of p.structures) cands.push({ do: 'assign', player: P, card: id, structure: s });
      cands.push({ do: 'attack', player: P, attacker: id, target: 'master' });
      for (const t of O.battle) cands.push({ do: 'attack', player: P, attacker: id, target: t });
      cands.push({ do: 'block', player: P, blocker: id });
    }
    for (const c of g.cards.values()) {
      if (c.owner === P && inPlay(c)) c.abilities.forEach((ab, i) => cands.push({ do: 'activate', player: P, card: c.id, ability: i }));
    }
  }
  const out = [];
  for (const cand of cands) {
    const r = doAct(cloneGame(g), cand);
    if (!r) { out.push(cand); continue; }
    if (r.choiceInfo) {
      const { k, options } = r.choiceInfo;
      const rec = (prefix) => {
        if (prefix.length === k) { out.push({ ...cand, choose: prefix }); return; }
        for (const o of options) rec(prefix.concat([o]));
      };
      rec([]);
    }
  }
  return out;
}

// ---------------------------------------------------------------- protocol loop

let game = null;
let done = false;

function handle(line) {
  let req;
  try { req = JSON.parse(line); } catch (e) { return { ok: false, error: 'bad-json', message: 'the line is not JSON' }; }
  if (!isObj(req)) return { ok: false, error: 'bad-request', message: 'the request is not a JSON object' };
  const cmd = req.cmd;
  switch (cmd) {
    case 'hello':
      if (has(req, 'protocol') && req.protocol !== 1) return { ok: false, error: 'unsupported', message: 'only protocol 1 is supported' };
      return { ok: true, engine: ENGINE, keywords: KEYWORD_IDS.slice(), commands: COMMANDS.slice() };
    case 'setup': {
      try {
        const g = buildGame(req.state);
        game = g;
        return { ok: true };
      } catch (e) {
        if (e instanceof SetupError) return { ok: false, error: e.code, message: e.message };
        throw e;
      }
    }
    case 'act': {
      if (!game) return { ok: false, error: 'no-game', message: 'no game: send setup first' };
      const g = cloneGame(game);
      const r = doAct(g, req.action);
      if (r) return { ok: false, error: 'illegal', reason: r.reason, message: r.message || r.reason };
      game = g;
      return { ok: true };
    }
    case 'observe':
      if (!game) return { ok: false, error: 'no-game', message: 'no game: send setup first' };
      return { ok: true, state: observe(game) };
    case 'legal':
      if (!game) return { ok: false, error: 'no-game', message: 'no game: send setup first' };
      return { ok: true, actions: legal(game) };
    case 'bye':
      done = true;
      return { ok: true };
    default:
      return { ok: false, error: 'unknown-command', message: `unknown command ${JSON.stringify(cmd)}` };
  }
}

function main() {
  const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity, terminal: false });
  rl.on('line', (line) => {
    if (done) return;
    let resp;
    const saved = game;
    try {
      resp = handle(line);
    } catch (e) {
      game = saved; // state as before the request
      log('internal error:', e && e.stack ? e.stack : String(e));
      resp = { ok: false, error: 'internal', message: String(e && e.message ? e.message : e) };
    }
    let text;
    try { text = JSON.stringify(resp); } catch (e) { text = '{"ok":false,"error":"internal","message":"serialization failed"}'; }
    if (done) {
      rl.close();
      process.stdout.write(text + '\n', () => process.exit(0));
    } else {
      process.stdout.write(text + '\n');
    }
  });
  rl.on('close', () => { /* stdin closed: let pending output flush, then exit naturally */ });
}

if (require.main === module) main();
module.exports = { handle };

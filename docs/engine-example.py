#!/usr/bin/env python3
"""A worked example of an engine for palconf: protocol v1 in plain Python, no dependency.

It implements a subset on purpose and says so, which is how any engine starts:
- `hello` lists no keywords, so every case about a keyword is skipped (not failed);
- the base game only as far as attacks go: `attack`, `block`, `pass`, `end-turn`;
- `deploy`, `assign`, `play`, `activate` and `interrupt` are answered `unsupported`, so
  the cases that need them are skipped too;
- refusals give a reason, though not always the one the protocol's order of checks picks.

Try it:   palconf smoke --engine-cmd "python docs/engine-example.py"
          palconf run --engine-cmd "python docs/engine-example.py" --keyword base
"""

import json
import sys

IN_PLAY = ("battle", "structures", "assigned")


def refuse(reason, message):
    return {"ok": False, "error": "illegal", "reason": reason, "message": message}


class Game:
    def __init__(self, state):
        self.active, self.turn = state.get("active", "A"), state.get("turn", 1)
        self.night, self.winner, self.step, self.priority = (
            state.get("night", False),
            None,
            "main",
            None,
        )
        self.attack, self.passes = None, 0
        self.life = {p: state["players"][p]["life"] for p in "AB"}
        self.energy = {p: state["players"][p].get("energy", 0) for p in "AB"}
        self.cards = {}  # id -> {kind, owner, zone, state, power, strike, host}
        for p in "AB":
            for zone in ("hand", "battle", "structures", "graveyard"):
                for card in state["players"][p].get(zone, []):
                    self.add(card, p, zone, None)
                    for pal in card.get("assigned", []):
                        self.add(pal, p, "assigned", card["id"])

    def add(self, card, owner, zone, host):
        if card["id"] in self.cards or card["id"] == "master":
            raise ValueError(f"bad or duplicate card id {card['id']!r}")
        self.cards[card["id"]] = {
            "kind": card["kind"],
            "owner": owner,
            "zone": zone,
            "host": host,
            "state": card.get("state", "stand"),
            "power": card.get("power"),
            "strike": card.get("strike", 0),
        }

    def observe(self):
        def ids(p, zone):
            return sorted(i for i, c in self.cards.items() if c["owner"] == p and c["zone"] == zone)

        players = {
            p: {
                "life": self.life[p],
                "energy": self.energy[p],
                "hand": ids(p, "hand"),
                "battle": ids(p, "battle"),
                "graveyard": ids(p, "graveyard"),
                "structures": {
                    s: sorted(i for i, c in self.cards.items() if c["host"] == s)
                    for s in ids(p, "structures")
                },
            }
            for p in "AB"
        }
        cards = {
            i: {
                "zone": c["zone"],
                "owner": c["owner"],
                "state": c["state"] if c["zone"] in IN_PLAY else None,
                "power": c["power"] if c["kind"] == "pal" else None,
                "strike": c["strike"] if c["kind"] == "pal" else None,
            }
            for i, c in sorted(self.cards.items())
        }
        return {
            "active": self.active,
            "turn": self.turn,
            "night": self.night,
            "winner": self.winner,
            "step": self.step,
            "priority": self.priority,
            "attack": self.attack,
            "players": players,
            "cards": cards,
        }

    def pal_in_battle(self, card_id, owner):
        c = self.cards.get(card_id)
        return (
            c
            if c and c["kind"] == "pal" and c["zone"] == "battle" and c["owner"] == owner
            else None
        )

    def act(self, a):
        do, player = a.get("do"), a.get("player")
        if self.step == "over":
            return refuse("game-over", "the game is over")
        if do in ("deploy", "assign", "play", "activate", "interrupt"):
            return {"ok": False, "error": "unsupported", "message": f"this engine has no `{do}`"}
        if do not in ("attack", "block", "pass", "end-turn") or player not in ("A", "B"):
            return refuse("invalid-action", f"unknown action {do!r}")
        other = "B" if player == "A" else "A"
        if do in ("attack", "end-turn"):
            if self.step != "main":
                return refuse("wrong-timing", "only in the main phase")
            if player != self.active:
                return refuse("wrong-player", "not your turn")
        elif self.step == "main" or (do == "block" and self.step != "block"):
            return refuse("wrong-timing", f"no `{do}` now")
        elif player != self.priority:
            return refuse("wrong-player", "the other player is to act")
        if do == "end-turn":
            self.active, self.turn = other, self.turn + 1
            for c in self.cards.values():
                if c["owner"] == other and c["zone"] in IN_PLAY:
                    c["state"] = "stand"
        elif do == "attack":
            attacker, target = self.pal_in_battle(a.get("attacker"), player), a.get("target")
            if attacker is None:
                return refuse("not-found", "the attacker is not your Pal in battle")
            if attacker["state"] != "stand":
                return refuse("cannot-attack", "the attacker is rested")
            victim = self.pal_in_battle(target, other)
            if target != "master" and (victim is None or victim["state"] != "rest"):
                return refuse("illegal-target", "the target is not the master or a rested Pal")
            attacker["state"] = "rest"
            self.attack = {"attacker": a["attacker"], "target": target, "blocked": False}
            self.step, self.priority = "block", other
        elif do == "block":
            blocker = self.pal_in_battle(a.get("blocker"), player)
            if (
                blocker is None
                or blocker["state"] != "stand"
                or a["blocker"] == self.attack["target"]
            ):
                return refuse("cannot-block", "not a standing Pal of yours other than the target")
            blocker["state"] = "rest"
            self.attack.update(target=a["blocker"], blocked=True)
            self.step, self.passes = "quick", 0
        elif self.step == "block":  # pass: no block, on to the quick step, defender first
            self.step, self.passes = "quick", 0
        else:  # pass in the quick step
            self.passes += 1
            self.priority = other
            if self.passes == 2:
                self.battle()
        return {"ok": True}

    def battle(self):
        attacker, target = self.cards[self.attack["attacker"]], self.attack["target"]
        defender = "B" if self.active == "A" else "A"
        if attacker["zone"] == "battle" and target == "master":
            self.life[defender] -= attacker["strike"]
            if self.life[defender] <= 0:
                self.winner = self.active
        elif attacker["zone"] == "battle" and self.cards[target]["zone"] == "battle":
            victim = self.cards[target]  # the lower power goes to the graveyard; equal: both
            if attacker["power"] <= victim["power"]:
                attacker["zone"] = "graveyard"
            if victim["power"] <= attacker["power"]:
                victim["zone"] = "graveyard"
        self.step, self.priority, self.attack = ("over" if self.winner else "main"), None, None


def handle(game, request):
    cmd = request.get("cmd") if isinstance(request, dict) else None
    if cmd == "hello":
        return game, {
            "ok": True,
            "engine": {"name": "example-engine", "version": "0.1"},
            "keywords": [],
            "commands": ["setup", "act", "observe"],
        }
    if cmd == "setup":
        try:
            return Game(request["state"]), {"ok": True}
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            return game, {"ok": False, "error": "invalid-state", "message": str(e)}
    if cmd in ("act", "observe") and game is None:
        return game, {"ok": False, "error": "no-game", "message": "no `setup` yet"}
    if cmd == "act":
        return game, game.act(
            request.get("action") if isinstance(request.get("action"), dict) else {}
        )
    if cmd == "observe":
        return game, {"ok": True, "state": game.observe()}
    if cmd == "bye":
        return game, {"ok": True}
    if not isinstance(request, dict):
        return game, {"ok": False, "error": "bad-request", "message": "not a JSON object"}
    return game, {"ok": False, "error": "unknown-command", "message": f"unknown command {cmd!r}"}


def main():
    game = None
    for line in sys.stdin:  # one request per line ...
        try:
            request = json.loads(line)
        except ValueError as e:
            request, reply = None, {"ok": False, "error": "bad-json", "message": str(e)}
        else:
            game, reply = handle(game, request)
        print(json.dumps(reply), flush=True)  # ... one reply per line, flushed at once
        if not reply["ok"]:  # logs go to stderr, never stdout
            print(f"example-engine: {reply['error']}: {reply.get('message', '')}", file=sys.stderr)
        if isinstance(request, dict) and request.get("cmd") == "bye":
            return


if __name__ == "__main__":
    main()

"""Perft: counting legal action sequences, as chess programmers check move generation.

`perft(nav, depth)` counts the sequences of `depth` legal actions from a position (a game
that ends earlier adds nothing; at the last level the count is the length of LEGAL, "bulk
counting"). Run on the oracle and on an engine, equal counts say their LEGAL lists agree
along every one of those sequences; when they split, `find_split` walks down the first
action whose subtree counts differ (the per-action breakdown, chess's "divide") to the
position where the two LEGAL lists differ, and says which actions only one side lists.

Positions are data: `generators/perft/<id>.toml`, each with an `id`, a `description`, a
protocol STATE under `state`, and the oracle's counts, `perft = [{depth = 1, nodes = 5}, …]`
(what `python -m palconf.generators.perft` prints when the oracle changes on purpose).

An engine is navigated through protocol v1 only: `setup`, then the path's actions, then
`legal` (so it must offer `legal`); the navigator replays a path only when it cannot just
extend the one it is on.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import tomli

from palconf.core import Engine, ProtocolViolation, Unsupported, act, json_read, setup
from palconf.core import legal as ask_legal
from palconf.core.errors import PalconfError, UsageError
from palconf.oracle import Rules, StateError
from palconf.oracle.rules import Refusal

from .game import action_key, sort_legal

PERFT_DIR = Path(__file__).resolve().parent / "perft"
MAX_DEPTH = 8


class PositionError(UsageError):
    """A perft data file that cannot be used (named in the message)."""


@dataclass(frozen=True)
class Position:
    id: str
    description: str
    state: dict[str, Any]
    counts: dict[int, int]  # depth → nodes, the oracle's counts stored with the position
    path: Path | None = None


def load_position(path: Path) -> Position:
    text = json_read.read_text(path, PositionError, "a perft position")  # (bounded, regular)
    try:
        data = tomli.loads(text)
    except tomli.TOMLDecodeError as e:
        raise PositionError(f"{path}: cannot read: {e}") from None
    where = str(path)
    pid = data.get("id")
    if not isinstance(pid, str) or pid != path.stem:
        raise PositionError(f"{where}: `id` must be the file name without .toml ({path.stem!r})")
    if not isinstance(data.get("description", ""), str):
        raise PositionError(f"{where}: `description` must be a string")
    state = data.get("state")
    if not isinstance(state, dict):
        raise PositionError(f"{where}: `state` must be a table (a protocol STATE)")
    try:
        Rules.from_state(state)
    except StateError as e:
        raise PositionError(
            f"{where}: `state` is not a STATE the oracle loads: {e.message}"
        ) from None
    counts: dict[int, int] = {}
    for entry in data.get("perft", []):
        if (
            not isinstance(entry, dict)
            or set(entry) != {"depth", "nodes"}
            or not all(isinstance(entry[k], int) and not isinstance(entry[k], bool) for k in entry)
        ):
            raise PositionError(f"{where}: each `perft` entry is {{depth = D, nodes = N}}")
        counts[entry["depth"]] = entry["nodes"]
    return Position(pid, data.get("description", ""), state, counts, path)


def load_positions(directory: Path = PERFT_DIR) -> list[Position]:
    """Every position of `directory`, sorted by id."""
    return [load_position(p) for p in sorted(directory.glob("*.toml"))]


# --------------------------------------------------------------------------- navigating


class Navigator(Protocol):
    def legal(self, path: tuple[dict[str, Any], ...]) -> list[dict[str, Any]]:
        """LEGAL after playing `path` from the position."""


class EngineDisagrees(PalconfError):
    """The engine refused an action of the path, one it had listed as legal itself."""

    def __init__(self, path: tuple[dict[str, Any], ...], reply: dict[str, Any]) -> None:
        super().__init__(
            f"the engine refused an action it had listed as legal: "
            f"{action_key(path[-1])} ({reply.get('reason')}: "
            f"{reply.get('message', '')})"
        )
        self.path = path
        self.reply = reply


class OracleNavigator:
    """The oracle (or a `Rules` subclass) navigated directly, keeping the states of the
    current path so that moving to a sibling costs one action."""

    def __init__(self, state: dict[str, Any], rules: type[Rules] = Rules) -> None:
        self.rules = rules
        self.root = rules.from_state(state).state
        self.keys: list[str] = []
        self.states = [self.root]
        self.probe = rules(self.root)  # one Rules object, moved from state to state

    def legal(self, path: tuple[dict[str, Any], ...]) -> list[dict[str, Any]]:
        keys = [action_key(a) for a in path]
        common = 0
        while common < min(len(keys), len(self.keys)) and keys[common] == self.keys[common]:
            common += 1
        del self.keys[common:]
        del self.states[common + 1 :]
        for key, action in zip(keys[common:], path[common:], strict=True):
            try:
                g = self.probe.try_action(self.states[-1], action)
            except Refusal as r:
                raise ValueError(f"the oracle refused {key} on the path ({r.reason})") from None
            self.keys.append(key)
            self.states.append(g)
        self.probe.state = self.states[-1]
        return self.probe.legal()


class EngineNavigator:
    """An engine navigated through the protocol: `setup`, the path's actions, `legal`."""

    def __init__(self, engine: Engine, state: dict[str, Any]) -> None:
        self.engine = engine
        self.state = state
        self.keys: list[str] | None = None  # the path the engine is at; None: not set up
        self.requests = 0

    def legal(self, path: tuple[dict[str, Any], ...]) -> list[dict[str, Any]]:
        """LEGAL after `path`. `unsupported` (to the setup or later) is a ProtocolViolation
        here: a position names only what protocol v1 lists, so there is nothing to skip."""
        try:
            return self._legal(path)
        except Unsupported as e:
            self.keys = None
            raise ProtocolViolation(f"the engine cannot play this position: {e}") from None

    def _legal(self, path: tuple[dict[str, Any], ...]) -> list[dict[str, Any]]:
        keys = [action_key(a) for a in path]
        if self.keys is None or keys[: len(self.keys)] != self.keys:
            self.requests += 1
            reply = setup(self.engine, self.state)
            if not reply["ok"]:
                raise ProtocolViolation(
                    f"the engine refused the position's setup: "
                    f"{reply.get('error')}: {reply.get('message', '')}"
                )
            self.keys = []
        for i in range(len(self.keys), len(keys)):
            self.requests += 1
            refusal = act(self.engine, path[i], i + 1)
            if refusal is not None:
                self.keys = None
                raise EngineDisagrees(path[: i + 1], refusal)
            self.keys.append(keys[i])
        self.requests += 1
        return ask_legal(self.engine, len(path))


# --------------------------------------------------------------------------- counting


def perft(nav: Navigator, depth: int, path: tuple[dict[str, Any], ...] = ()) -> int:
    """The number of sequences of `depth` legal actions from `path` (bulk-counted)."""
    actions = nav.legal(path)
    if depth <= 1:
        return len(actions) if depth == 1 else 1
    return sum(perft(nav, depth - 1, path + (a,)) for a in sort_legal(actions))


def divide(
    nav: Navigator, depth: int, path: tuple[dict[str, Any], ...] = ()
) -> dict[str, tuple[dict[str, Any], int]]:
    """Chess's divide: for each legal action, the count of its subtree (depth - 1)."""
    return {
        action_key(a): (a, perft(nav, depth - 1, path + (a,))) for a in sort_legal(nav.legal(path))
    }


@dataclass
class Row:
    action: dict[str, Any]
    oracle: int | None  # None: not legal on that side
    engine: int | None


@dataclass
class Split:
    """Where the counts split: the per-action breakdown at each level walked down
    (`levels[i]` at `path[:i]`), and at `path` the actions only one side lists."""

    path: tuple[dict[str, Any], ...]
    levels: list[list[Row]] = field(default_factory=list)
    only_oracle: list[dict[str, Any]] = field(default_factory=list)
    only_engine: list[dict[str, Any]] = field(default_factory=list)
    note: str = ""


def find_split(oracle: Navigator, engine: Navigator, depth: int) -> Split | None:
    """Walk down to where the oracle's and the engine's LEGAL lists first differ, following
    at each level the first action whose subtree counts differ. None: the counts agree."""
    path: tuple[dict[str, Any], ...] = ()
    levels: list[list[Row]] = []
    while True:
        ours = {action_key(a): a for a in oracle.legal(path)}
        theirs_list = engine.legal(path)
        theirs = {action_key(a): a for a in theirs_list}
        if ours.keys() != theirs.keys():
            return Split(
                path,
                levels,
                sort_legal([a for k, a in ours.items() if k not in theirs]),
                sort_legal([a for k, a in theirs.items() if k not in ours]),
            )
        if len(theirs_list) != len(theirs):
            return Split(path, levels, note="the engine lists the same action more than once")
        if depth <= 1:
            return None
        rows = []
        for a in sort_legal(list(ours.values())):
            rows.append(
                Row(a, perft(oracle, depth - 1, path + (a,)), perft(engine, depth - 1, path + (a,)))
            )
        levels.append(rows)
        first = next((r for r in rows if r.oracle != r.engine), None)
        if first is None:
            return None
        path += (first.action,)
        depth -= 1


# --------------------------------------------------------------------------- maintenance


def main(argv: list[str] | None = None) -> int:
    """Print the oracle's counts of every position up to a depth (default 3), as `perft`
    entries to paste into the data files when the oracle changes on purpose."""
    args = sys.argv[1:] if argv is None else argv
    depth = int(args[0]) if args else 3
    for pos in load_positions():
        counts = [perft(OracleNavigator(pos.state), d) for d in range(1, depth + 1)]
        entries = ", ".join(
            f"{{ depth = {d}, nodes = {n} }}" for d, n in enumerate(counts, start=1)
        )
        print(f"{pos.id}: perft = [{entries}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())

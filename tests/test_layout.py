"""The tree is the architecture (issue 24): one import name, layers without circles, files
that fit on a few screens, and lazy public faces that say what they offer."""

from __future__ import annotations

import ast
import functools
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: repository folder → the import name it is installed under
FOLDERS = {
    "palconf": "palconf",
    "oracle": "palconf.oracle",
    "generators": "palconf.generators",
    "reports": "palconf.reports",
}
MAX_LINES = 450


@functools.cache
def parsed(path: Path) -> ast.Module:
    """A file's syntax tree (once per test process: several tests walk every file)."""
    return ast.parse(path.read_text(encoding="utf-8"))


def modules() -> dict[str, Path]:
    """Every module of the installed package, by its import name."""
    found: dict[str, Path] = {}
    for folder, name in FOLDERS.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = list(path.relative_to(ROOT / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join([name, *parts])] = path
    return found


def imports_of(name: str, path: Path, known: dict[str, Path]) -> Iterator[str]:
    """Every palconf module that `name` imports anywhere: at the top, inside functions
    (lazy) and under `if TYPE_CHECKING:` (type-only) alike."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(parsed(path)):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(up + ([base] if base else []))
            targets = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                for alias in node.names
            ]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                yield target


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: set(imports_of(name, path, known)) for name, path in known.items()}


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt) :] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_the_import_graph_has_no_circle() -> None:
    cycle = find_cycle(graph())
    assert cycle is None, "import circle: " + " → ".join(cycle or [])


def test_the_cycle_finder_finds_a_circle() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_the_oracle_and_core_import_nothing_above_them() -> None:
    edges = graph()
    for name, targets in edges.items():
        if name.startswith("palconf.oracle"):
            assert all(t.startswith("palconf.oracle") for t in targets), (name, targets)
        if name.startswith("palconf.core"):
            assert all(t.startswith("palconf.core") for t in targets), (name, targets)


def _python_files() -> Iterator[Path]:
    for folder in (*FOLDERS, "tests", "benchmarks", ".ci"):
        for path in (ROOT / folder).rglob("*"):
            if path.suffix == ".py" or (path.parent.name == ".ci" and path.is_file()):
                if "data" not in path.relative_to(ROOT).parts[:2]:
                    yield path


def test_no_code_imports_the_old_top_level_names() -> None:
    old = {"oracle", "generators", "reports"}
    wrong = []
    for path in _python_files():
        try:
            tree = parsed(path)
        except SyntaxError:
            continue  # a shell script in .ci/
        for node in ast.walk(tree):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom) and not node.level
                else []
            )
            wrong += [f"{path.relative_to(ROOT)}: {n}" for n in names if n.split(".")[0] in old]
    assert wrong == []


def test_every_source_file_fits_the_size_limit() -> None:
    long = {
        str(path.relative_to(ROOT)): n
        for path in modules().values()
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}, f"over {MAX_LINES} lines: {long}"


def _face(path: Path) -> tuple[dict[str, str], set[str], list[str]] | None:
    """A lazy face's map, its TYPE_CHECKING imports (name → module) and its __all__."""
    tree = parsed(path)
    exports: dict[str, str] | None = None
    typed: dict[str, str] = {}
    listed: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            if node.targets[0].id == "_EXPORTS":
                exports = ast.literal_eval(node.value)
            if node.targets[0].id == "__all__":
                listed = ast.literal_eval(node.value)
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING":
            for imp in node.body:
                assert isinstance(imp, ast.ImportFrom)
                typed.update({a.name: imp.module or "" for a in imp.names})
    if exports is None:
        return None
    return exports, typed, listed


@pytest.mark.parametrize(
    "name", sorted(n for n, p in modules().items() if p.name == "__init__.py"), ids=str
)
def test_each_public_face_names_what_it_imports(name: str) -> None:
    face = _face(modules()[name])
    if face is None:
        return  # a face that imports eagerly (palconf.core, palconf.oracle, …)
    exports, typed, listed = face
    package = name
    resolved = {k: v if not v.startswith(".") else package + v for k, v in exports.items()}
    assert resolved == typed, f"{name}: _EXPORTS and the TYPE_CHECKING imports differ"
    own = set(listed) - set(exports)  # names the face defines itself (`__version__`)
    assert set(exports) <= set(listed), f"{name}: __all__ leaves out names of _EXPORTS"
    module = __import__(name, fromlist=["_"])
    assert all(n in vars(module) for n in own), f"{name}: __all__ names {own - set(vars(module))}"
    module = __import__(name, fromlist=["_"])
    for export in exports:
        assert getattr(module, export) is not None


def _imported_by(code: str) -> set[str]:
    probe = (
        "import sys\n"
        f"{code}\n"
        "heavy = ('hypothesis', 'jinja2', 'jsonschema')\n"
        "print(' '.join(sorted(m for m in heavy if m in sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, check=True
    )
    return set(done.stdout.split())


@pytest.mark.parametrize(
    "argv",
    [
        ["--version"],
        ["--help"],
        # these two load the whole suite in a process of their own
        pytest.param(["list"], marks=pytest.mark.slow),
        pytest.param(["list", "keywords"], marks=pytest.mark.slow),
    ],
    ids=lambda argv: " ".join(argv),
)
def test_a_light_command_loads_no_heavy_library(argv: list[str]) -> None:
    code = (
        "import contextlib, io\n"
        "from palconf.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try:\n"
        f"        main({argv!r})\n"
        "    except SystemExit:\n"
        "        pass"
    )
    assert _imported_by(code) == set()


def test_the_probe_sees_a_heavy_import() -> None:
    assert _imported_by("import jinja2") == {"jinja2"}


#: The layers of docs/architecture.md, lowest first: a module imports only from its own layer's
#: part of the tree or from lower layers (the facade `palconf` is imported for `__version__`
#: only, and lazily names what is above it).
LAYERS: tuple[tuple[str, ...], ...] = (
    ("palconf.core", "palconf.oracle"),
    ("palconf.paths", "palconf.registry"),
    ("palconf.cases",),
    ("palconf.engines",),
    ("palconf.reports",),
    ("palconf.running",),
    (
        "palconf.explain",
        "palconf.plugin",
        "palconf.authoring",
        "palconf.mutants",
        "palconf.generators",
    ),
    ("palconf.commands", "palconf.cli", "palconf.parser", "palconf.ci_action"),
)


def _part(module: str) -> str:
    return ".".join(module.split(".")[:2])


def test_imports_only_go_down_the_layers() -> None:
    level = {part: n for n, parts in enumerate(LAYERS) for part in parts}
    upward = sorted(
        f"{name} → {target}"
        for name, targets in graph().items()
        if name != "palconf"
        for target in targets
        if target != "palconf" and level[_part(target)] > level[_part(name)]
    )
    assert upward == []


def test_every_part_of_the_tree_has_a_layer() -> None:
    level = {part for parts in LAYERS for part in parts}
    assert {_part(m) for m in modules()} - {"palconf"} == level

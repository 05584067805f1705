"""An engine written from the specifications alone (tests/engines/cleanroom.js, Node) against
the suite and the oracle: every case passes on it, and the fuzzer finds no difference. A case
that fails here either catches a real misreading of that engine (fix the engine, and say so in
its header) or demands the oracle's reading of a point the specs leave open (rule on it:
docs/case-format.md, a list of reasons; rules/registry.toml, an interpretation)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from palconf.cli import main
from palconf.engines.process import ProcessEngine
from palconf.generators.differential import fuzz

NODE = shutil.which("node")
ENGINE = Path(__file__).parent / "engines" / "cleanroom.js"
pytestmark = [
    pytest.mark.skipif(NODE is None, reason="Node.js is not installed (apt-get install nodejs)"),
    pytest.mark.slow,  # the whole suite through a child process, and a fuzz campaign
]


def test_every_case_passes_on_the_clean_room_engine(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["run", "--engine-cmd", f"{NODE} {ENGINE}", "--strict", "--progress", "none"])
    out = capsys.readouterr().out
    assert code == 0, out[-3000:]
    assert "indep-js" in out  # the run's header names the engine it ran


def test_the_fuzzer_finds_no_difference_with_the_clean_room_engine() -> None:
    engine = ProcessEngine([str(NODE), str(ENGINE)], timeout=10)
    engine.start()
    try:
        report = fuzz(engine, examples=300, seed=3, max_actions=20)
    finally:
        engine.close()
    assert report.difference is None, report.difference and report.difference.summary

"""palconf: the conformance suite for the keyword rules of the Pal card game (CR 1.00 §12).

One import name, and this is its public facade: what an engine author or a tool needs,
without knowing the tree. The tree is the architecture (docs/architecture.md):

- `palconf.oracle`: the reference oracle (the base game and the fourteen keywords);
- `palconf.core`: the shared types (`Result`, `Outcome`, `Diff`, the `Engine` interface, the
  errors and exit codes);
- `palconf.cases`: reading case files; `palconf.engines`: engines and the wire;
  `palconf.running`: running cases and their results; `palconf.plugin`: the pytest plugin;
  `palconf.explain`: one case looked at closely; `palconf.authoring`: lint and rules versions;
  `palconf.mutants`: the oracle with one misreading each;
- `palconf.generators`: Hypothesis strategies and differential fuzzing;
  `palconf.reports`: compliance reports and the site;
- `palconf.cli` and `palconf.commands`: the `palconf` command.

Importing `palconf` loads none of it: each name below is imported when first used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from palconf.core.lazy import lazy_face

__version__ = "0.1.0"

if TYPE_CHECKING:
    from palconf.cases.loader import Case, load_cases
    from palconf.core.engine import BaseEngine, Engine, EngineFault, EngineInfo
    from palconf.core.errors import ExitCode, PalconfError, UsageError
    from palconf.core.outcomes import Outcome, Result
    from palconf.engines.oracle_engine import OracleEngine
    from palconf.engines.process import ProcessEngine
    from palconf.running.runner import run_case

_EXPORTS = {
    "BaseEngine": "palconf.core.engine",
    "Engine": "palconf.core.engine",
    "EngineFault": "palconf.core.engine",
    "EngineInfo": "palconf.core.engine",
    "Outcome": "palconf.core.outcomes",
    "Result": "palconf.core.outcomes",
    "ExitCode": "palconf.core.errors",
    "PalconfError": "palconf.core.errors",
    "UsageError": "palconf.core.errors",
    "OracleEngine": "palconf.engines.oracle_engine",
    "ProcessEngine": "palconf.engines.process",
    "Case": "palconf.cases.loader",
    "load_cases": "palconf.cases.loader",
    "run_case": "palconf.running.runner",
}
__all__ = [
    "__version__",
    "BaseEngine",
    "Case",
    "Engine",
    "EngineFault",
    "EngineInfo",
    "ExitCode",
    "OracleEngine",
    "Outcome",
    "PalconfError",
    "ProcessEngine",
    "Result",
    "UsageError",
    "load_cases",
    "run_case",
]
__getattr__, __dir__ = lazy_face(__name__, _EXPORTS)

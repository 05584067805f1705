"""palconf's compliance reports: HTML, Markdown, JSON, JUnit XML and badges from results files.

    from palconf.reports import read_results, build, write_report
    runs = [read_results(Path("oracle.jsonl")), read_results(Path("my-engine.jsonl"))]
    write_report(build(runs, palconf.registry.load()), Path("report/"))

The model and the renderers, with no import circle:

- results files are read by `palconf.core.results_file` (below the reports and the
  harness alike); `reports.mutants` reads the optional suite-strength input;
- `reports.model` is the report model (views and their tallies), `reports.build` builds it;
- `reports.render` holds the Jinja environments and the escaping helpers, used by the
  renderers `reports.html`, `reports.markdown`, `reports.junit`, `reports.badges`;
- `reports.write` writes them all into a folder; `reports.compare` is the difference
  between two runs.
"""

from palconf.core.results_file import ResultsError, ResultsFile, read_results

from .build import build
from .compare import compare
from .model import Report
from .mutants import read_mutants
from .write import write_report

__all__ = [
    "Report",
    "ResultsError",
    "ResultsFile",
    "build",
    "compare",
    "read_mutants",
    "read_results",
    "write_report",
]

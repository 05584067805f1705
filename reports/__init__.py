"""palconf's compliance reports: HTML, Markdown, JSON, JUnit XML and badges from results files.

    from reports import read_results, build, write_report
    runs = [read_results(Path("oracle.jsonl")), read_results(Path("my-engine.jsonl"))]
    write_report(build(runs, palconf.registry.load()), Path("report/"))

`reports.results` reads results files (and defines their meta line), `reports.build` builds
and writes the report, `reports.junit` the JUnit XML, `reports.compare` the difference
between two runs, `reports.mutants` the optional suite-strength input.
"""

from .build import Report, build, write_report
from .compare import compare
from .mutants import read_mutants
from .results import ResultsError, ResultsFile, read_results

__all__ = ["Report", "ResultsError", "ResultsFile", "build", "compare", "read_mutants",
           "read_results", "write_report"]

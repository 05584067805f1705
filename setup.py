"""Packaging glue: the wheel carries the suite's data.

The repository keeps `cases/` and `rules/` at the top (they are data, reviewed like code,
and a git submodule checkout uses them where they lie). A wheel has no top level of its own,
so `build_py` copies both into the package as `palconf/suite/cases` and
`palconf/suite/rules`; `palconf.paths` looks there first. An editable install
(`pip install -e .`) copies nothing: it reads the checkout's folders directly.
The list of packages is made here too: `palconf` and its subpackages, and the top-level
`oracle/`, `generators/` and `reports/`, installed as `palconf.oracle`, `palconf.generators`
and `palconf.reports` (pyproject.toml maps the folders). Everything else about the package is
in pyproject.toml.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import find_packages, setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
#: top-level folders of the repository installed under the one import name `palconf`
#: (pyproject.toml's package-dir maps each to its folder)
MAPPED = {
    "palconf.oracle": "oracle",
    "palconf.generators": "generators",
    "palconf.reports": "reports",
}


def packages() -> list[str]:
    """`palconf` and every subpackage of it, the mapped folders' own subpackages included."""
    found = find_packages(include=["palconf", "palconf.*"])
    for name, folder in MAPPED.items():
        found += [name] + [f"{name}.{sub}" for sub in find_packages(where=folder)]
    return found


#: top-level data folders → where they go inside the package
SUITE_DATA = ("cases", "rules")


class BuildPyWithSuite(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        target = Path(self.build_lib, "palconf", "suite")
        for name in SUITE_DATA:
            source = HERE / name
            if not source.is_dir():
                raise SystemExit(f"setup.py: {source} is missing; cannot build a wheel without it")
            shutil.rmtree(target / name, ignore_errors=True)
            shutil.copytree(
                source, target / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
            )


setup(packages=packages(), cmdclass={"build_py": BuildPyWithSuite})

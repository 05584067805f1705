"""palconf: the conformance suite for the keyword rules of the Pal card game (CR 1.00 §12).

The harness: `palconf.registry` (rules as data), `palconf.cases` (the case loader),
`palconf.engines` (in-process and child-process engines), `palconf.runner` (verdicts),
`palconf.cli` (the `palconf` command).
"""

__version__ = "0.1.0"

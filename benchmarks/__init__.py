"""Benchmarks of palconf: the runner, the JSON-lines adapter and the fuzzer.

Run them with `python -m benchmarks` from the project root (see benchmarks/run.py). They
print figures (and write them as JSON with `--out FILE`); they assert nothing and are not
part of the test run.
"""

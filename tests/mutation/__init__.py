"""Mutation testing of the reference oracle with mutmut, the case corpus as the only tests:
`python -m tests.mutation` (README, "Suite strength: mutant engines"). `runner` runs it,
`corpus` is the test module mutmut runs, `equivalent.toml` lists the equivalent mutants."""

"""The pytest plugin: every case a test item beside the project's own tests.

`hooks` is the `pytest11` entry point (`palconf = "palconf.plugin.hooks"`): the options
(`--palconf`, `--palconf-engine-cmd`, ...) and the hooks. `items` makes the case items and
their failure reports; `engine` holds the one engine a session shares (started on first
use, restarted after a fault) and the factories that make it. Registering the plugin imports
nothing heavy: the oracle, the case loader and the runner load only with `--palconf`.
"""

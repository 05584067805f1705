"""The deliberately broken engine of the older tests: tests/engines/fake.py under its first
name, with the same arguments and kinds (its messages say "broken engine", its `hello` name
is `broken-engine`):

    python tests/engines/broken.py MODE [--on FINGERPRINT] [--at CMD] [--marker FILE]
                                        [--pidfile FILE]

The modes the older tests use: ok, crash, hang, garbage, oversized, wrong-shape, junk,
junk-after, stderr, exit-at-hello, crash-then-bad-hello, accept-all. fake.py's `KINDS`
lists them all, with what each does; tests/engines/fake_kinds.toml what a user then sees.
"""

from __future__ import annotations

import sys

from fake import KINDS, fingerprint, main

MODES = tuple(KINDS)

__all__ = ["MODES", "fingerprint", "main"]

if __name__ == "__main__":
    sys.exit(main())

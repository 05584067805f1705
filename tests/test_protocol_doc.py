"""The project's copy of protocol v1 (docs/protocol.md) and the protocol rules of the registry
(`P-state`, `P-reasons`, `P-observed`, `P-legal`, `P-errors`) say what the protocol says,
word for word."""

from __future__ import annotations

import pytest

from palconf import paths
from palconf.registry import load as load_registry

DOC = paths.ROOT / "docs" / "protocol.md"
ADDED = "## Added by palconf"
#: Where the project is handed the protocol (beside the checkout); absent on a user's machine.
SHARED = paths.ROOT.parent / "shared" / "spec" / "protocol.md"


def protocol_text() -> str:
    text = DOC.read_text(encoding="utf-8")
    return text[: text.index(ADDED)]


def test_every_protocol_rule_is_the_documents_own_text() -> None:
    registry = load_registry()
    assert set(registry.protocol) == {"P-state", "P-reasons", "P-observed", "P-legal", "P-errors"}
    doc = protocol_text()
    for pid, text in registry.protocol.items():
        assert text.strip() in doc, f"{pid}: not word for word in docs/protocol.md"
        assert f"`{pid}`" in doc


@pytest.mark.skipif(not SHARED.exists(), reason=f"no shared spec at {SHARED}")
def test_the_copy_holds_the_shared_spec_word_for_word() -> None:
    spec = SHARED.read_text(encoding="utf-8").strip()
    assert spec in protocol_text(), "docs/protocol.md differs from the shared protocol spec"


def test_the_copy_is_not_a_draft_and_names_no_internal_path() -> None:
    head = "\n".join(DOC.read_text(encoding="utf-8").splitlines()[:8])
    assert "draft" not in head.lower() and "/work/" not in head

"""Every clause's text (rules/<version>/clauses.toml) is an exact substring of its rules
version's file."""

from pathlib import Path

import tomli

RULES = Path(__file__).resolve().parent.parent / "rules"


def load():
    return tomli.loads((RULES / "registry.toml").read_text(encoding="utf-8"))


def test_clause_texts_are_verbatim():
    reg = load()
    sources = {
        v: (RULES / meta["file"]).read_text(encoding="utf-8") for v, meta in reg["versions"].items()
    }
    assert reg["meta"]["current"] in sources
    texts = {
        v: tomli.loads((RULES / meta["clauses"]).read_text(encoding="utf-8"))["clauses"]
        for v, meta in reg["versions"].items()
    }
    for cid, clause in reg["clauses"].items():
        assert clause["keyword"] in reg["keywords"], cid
        assert cid in texts[reg["meta"]["current"]], cid
    for version, clauses in texts.items():
        for cid, text in clauses.items():
            assert cid in reg["clauses"], (version, cid)
            assert text and text in sources[version], (
                f"{cid} ({version}): not in the rules text: {text!r}"
            )


def test_headings_and_references():
    reg = load()
    src = (RULES / reg["versions"][reg["meta"]["current"]]["file"]).read_text(encoding="utf-8")
    lines = src.splitlines()
    for kid, kw in reg["keywords"].items():
        assert kw["heading"] + "#" in lines, kid
        assert kw["heading"].removesuffix(" (number)") == kw["name"], kid
        assert f"{kid}.summary" in reg["clauses"], kid
    for iid, interp in reg["interpretations"].items():
        for cid in interp["clauses"]:
            assert cid in reg["clauses"] and reg["clauses"][cid]["testable"], (iid, cid)


if __name__ == "__main__":
    test_clause_texts_are_verbatim()
    test_headings_and_references()
    print("registry ok")

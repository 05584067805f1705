"""What every renderer shares: the two Jinja environments (HTML, Markdown) and the text
helpers that make untrusted text safe in them.

Every string that comes from a results or mutants file is untrusted. In HTML and Markdown
every output first has its control characters (terminal escape sequences, NUL …) and other
unprintable characters made visible as escapes (`\\x1b`), by `palconf.core.terminal_safe`,
the rule every terminal output follows too, with newlines and tabs kept; then the HTML
environment autoescapes and the Markdown one escapes with `md_escape`.
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup, escape

from palconf.core import MISSING, terminal_safe
from palconf.core.outcomes import OUTCOMES

TEMPLATES = Path(__file__).resolve().parent / "templates"
#: Longest message or stderr text put in the page (the tail is kept: that is where errors are).
MAX_TEXT = 4000


def show_json(value: Any) -> str:
    """A value as compact JSON, as diffs show it; `(missing)` for a side with no such field."""
    if value is MISSING:
        return "(missing)"
    try:
        return json.dumps(value, sort_keys=True, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)


def tail(text: str, limit: int = MAX_TEXT) -> str:
    """The last `limit` characters of `text` (where an error usually is), marked if cut."""
    if len(text) <= limit:
        return text
    return f"[… {len(text) - limit} characters cut …]\n" + text[-limit:]


def shorten(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def visible(text: str) -> str:
    """Unprintable characters as escapes (`palconf.core.terminal_safe`); newlines (`\\r\\n`
    and `\\r` made `\\n`) and tabs stay. Neither HTML nor Markdown can show a control
    character, and in a terminal it acts."""
    return terminal_safe(text.replace("\r\n", "\n").replace("\r", "\n"), keep_newlines=True)


def _html_finalize(value: Any) -> Any:
    """Every HTML output: unprintable characters made visible (autoescaping happens after)."""
    if isinstance(value, str) and not isinstance(value, Markup):
        return visible(value)
    return value


_MD_SPECIAL = re.compile(r"([\\`*_\[\]|~@])")


class MdSafe(str):
    """Markdown the report wrote itself: `md_escape` leaves it as it is."""


def md_escape(value: Any) -> str:
    """Untrusted text → one inert line of Markdown, safe in a table cell.

    The marks that act inside a line are backslash-escaped (`|` cannot split a cell, a
    backtick cannot open code, `[x](y)` cannot make a link, `*` `_` `~` cannot emphasise,
    `@` cannot mention), HTML special characters become entities (`<script>` stays text on
    GitHub and GitLab), and newlines become `<br>`, so nothing can start a block.
    """
    if isinstance(value, MdSafe):
        return str(value)
    if value is None:
        return ""
    text = visible(str(value))
    text = _MD_SPECIAL.sub(r"\\\1", text)
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return "<br>".join(text.split("\n"))


def break_dots(value: Any) -> Markup:
    """A dotted field path (`cards.a1.power`), escaped, that may wrap after each dot."""
    return Markup(".<wbr>").join(escape(part) for part in str(value).split("."))


_CODE = re.compile(r"`([^`\n]+)`")
_STRONG = re.compile(r"\*\*(?=\S)([^*\n]+?)(?<=\S)\*\*")
_EM = re.compile(r"(?<![\w*])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![\w*])")


def inline_md(value: Any, limit: int | None = None, emphasis: bool = True) -> Markup:
    """Rules text written in Markdown (the base rules, docs/protocol.md) for HTML: escaped
    first, then only `` `code` ``, `**strong**` and `*emphasis*` made markup; nothing else
    (no links, no HTML) can come through. `limit` shortens the text first. With
    `emphasis=False` only code spans are made (`code_spans`)."""
    text = visible(str(value))
    if limit is not None:
        text = shorten(text, limit)
    out = str(escape(text))
    parts = _CODE.split(out)  # odd parts: inside backticks, left as they are
    if emphasis:
        for i in range(0, len(parts), 2):
            parts[i] = _EM.sub(r"<em>\1</em>", _STRONG.sub(r"<strong>\1</strong>", parts[i]))
    for i in range(1, len(parts), 2):
        parts[i] = f"<code>{parts[i]}</code>"
    return Markup("".join(parts))


def code_spans(value: Any) -> Markup:
    """A message or a title (palconf's words around an engine's, or a case's title) for
    HTML: text, escaped, whose `` `name` `` spans (how palconf quotes a command or a field:
    "`legal` differs") are shown as code, the backticks dropped. Nothing else is markup:
    `*`, `_`, `<b>` stay as they were written (an engine's text is not Markdown)."""
    return inline_md(value, emphasis=False)


@functools.cache
def environment() -> jinja2.Environment:
    """The HTML templates' environment: StrictUndefined, autoescaping on. One per process,
    so that each template is compiled once (a site renders a page per case; Jinja still
    sees a template file that changed on disk)."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        autoescape=True,
        finalize=_html_finalize,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(
        show_json=show_json,
        tail=tail,
        shorten=shorten,
        break_dots=break_dots,
        md=inline_md,
        code_spans=code_spans,
    )
    env.globals.update(OUTCOMES=OUTCOMES)
    return env


@functools.cache
def markdown_environment() -> jinja2.Environment:
    """For report.md and compare.md: no HTML autoescaping (it is not HTML) but every `{{ }}`
    goes through `md_escape` unless the template marks it `| md` (text the report itself
    wrote)."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        autoescape=False,
        undefined=jinja2.StrictUndefined,
        finalize=md_escape,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters.update(md=MdSafe, shorten=shorten, show_json=show_json)
    return env

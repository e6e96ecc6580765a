"""The documents stay inside the repository and name only real config keys."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from controller.app import config

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted(p for p in (ROOT / "docs").rglob("*") if p.suffix in (".md", ".txt"))]
RULES = ROOT / "docs" / "rules.md"


def _name(path: Path) -> str:
    return str(path.relative_to(ROOT))


@pytest.mark.parametrize("doc", DOCS, ids=_name)
def test_no_document_points_at_files_outside_the_repository(doc):
    text = doc.read_text(encoding="utf-8")
    outside = [line for line in text.splitlines() if re.search(r"(?<![\w.-])(\.\./)*shared/|/work/", line)]
    assert not outside, f"{_name(doc)} refers to files that are not in the repository: {outside}"


@pytest.mark.parametrize("doc", DOCS, ids=_name)
def test_every_relative_link_resolves_inside_the_repository(doc):
    text = doc.read_text(encoding="utf-8")
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        path = target.split("#", 1)[0]
        if not path or re.match(r"[a-z]+:", path):
            continue  # an anchor on the same page, or a web address
        resolved = (doc.parent / path).resolve()
        assert resolved.exists() and ROOT in resolved.parents, f"{_name(doc)}: broken link {target}"


def test_the_rules_reference_is_linked_from_the_readme_and_the_game_docs():
    for doc in ("README.md", "docs/modes.md", "docs/mafia.md", "docs/config.md"):
        assert "rules.md)" in (ROOT / doc).read_text(encoding="utf-8"), doc


def _schema_has(key: str) -> bool:
    if key.startswith("teams[]."):
        return key.removeprefix("teams[].") in config.defaults()["teams"][0]
    section, _, name = key.rpartition(".")
    try:
        return any(k.name == name for k in config.section(section).keys)
    except KeyError:
        return False


def _rule_rows() -> list[tuple[str, str, str]]:
    """(rule, clause, config key) of every row of the tables headed `| rule | clause | config key |`."""
    rows, in_rules = [], False
    for line in RULES.read_text(encoding="utf-8").splitlines():
        if not line.startswith("|"):
            in_rules = False
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells == ["rule", "clause", "config key"]:
            in_rules = True
        elif in_rules and not set("".join(cells)) <= {"-"}:
            assert len(cells) == 3, line
            rows.append(tuple(cells))
    return rows


def _rules_keys() -> list[str]:
    """Every config key docs/rules.md names: the backticked names of the "config key"
    column, and any backticked ``section.key`` / ``teams[].key`` in the text."""
    keys = [k for _, _, cell in _rule_rows() for k in re.findall(r"`([^`]+)`", cell)]
    keys += re.findall(r"`((?:teams\[\]|[a-z_]+)\.[a-z_]+)`", RULES.read_text(encoding="utf-8"))
    return keys


def test_every_config_key_named_in_the_rules_exists_in_the_schema():
    keys = _rules_keys()
    assert len(set(keys)) > 40  # the tables really were read
    unknown = sorted({k for k in keys if not _schema_has(k)})
    assert not unknown, f"docs/rules.md names keys that controller/app/config.py does not have: {unknown}"


def test_every_rule_names_its_clause_and_its_key():
    rows = _rule_rows()
    assert len(rows) > 50
    for rule, clause, key in rows:
        assert re.search(r"§\d|app\. \d|practice|default", clause), f"no clause for: {rule}"
        assert key == "—" or key.startswith("`"), f"no config key (or —) for: {rule}"


def test_a_key_that_must_be_positive_documents_so():
    """docs/config.md gave `blitz_s` «Range: -1000000 .. 1000000» while -5 and 0 are refused
    («must be > 0»): every key whose check is ``positive`` says «> 0», and its check agrees."""
    from controller.app import config
    from controller.core.errors import ConfigError
    from controller.core.schema import positive

    text = (ROOT / "docs" / "config.md").read_text(encoding="utf-8")
    row = next(line for line in text.splitlines() if line.startswith("| `blitz_s` |"))
    assert "Range: > 0 .." in row
    keys = [(s.name, k) for s in config.schema() for k in s.keys if k.check is positive]
    assert len(keys) >= 10
    for section, k in keys:
        bad = 0 if k.kind == "int" else 0.0
        try:
            config.build({section: {k.name: bad}})
        except ConfigError:
            continue
        raise AssertionError(f"{section}.{k.name} = 0 was taken")

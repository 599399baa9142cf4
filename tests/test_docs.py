"""The README stands alone: it and the docs it links point only at files in the repository, and the
repository's copies of the outside specs keep every line of the specs they copy (a superset)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_reader_is_sent_outside_the_repository(doc: Path):
    text = doc.read_text(encoding="utf-8")
    assert "../shared" not in text and not re.search(r"`shared/(spec|rules|data)", text), doc
    for target in LINK.findall(text):
        if target.startswith(("http://", "https://", "mailto:")):
            continue
        assert (doc.parent / target).exists(), f"{doc.name} links to a missing {target}"


@pytest.mark.parametrize("name", ["interfaces.md", "game-record.md"])
def test_the_repositorys_spec_copies_are_supersets(name: str):
    outside = ROOT.parent / "shared" / "spec" / name
    if not outside.exists():
        pytest.skip("the outside spec is not beside this checkout")
    ours = (ROOT / "docs" / name).read_text(encoding="utf-8")
    # links were made clickable in our copy; compare the words
    plain = re.sub(r"\[(`[^`]+`)\]\([^)]+\)", r"\1", ours)
    missing = [line for line in outside.read_text(encoding="utf-8").splitlines()
               if line.strip() and line.strip() not in plain]
    assert not missing, f"docs/{name} lost lines of the spec: {missing[:3]}"


def test_every_game_has_a_rules_digest():
    from engine.registry import game_names

    for name in game_names():
        assert (ROOT / "docs" / "rules" / f"{name}.md").exists(), name


def test_the_readmes_configuration_shows_the_defaults():
    """The README's configuration block said 7 shuffler passes while the default was 1."""
    import tomllib

    from controller.config import RigConfig

    text = (ROOT / "README.md").read_text()
    block = re.search(r"## Configuration.*?```toml\n(.*?)```", text, re.S)
    assert block, "no configuration block in the README"
    shown = tomllib.loads(block.group(1))
    defaults = RigConfig().model_dump()
    assert shown and all(defaults[key] == value for key, value in shown.items()), \
        {k: (v, defaults.get(k)) for k, v in shown.items() if defaults.get(k) != v}

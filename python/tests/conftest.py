"""Shared fixtures of the binding's tests: where the examples are, and a
helper that writes a Tile source into the test's temporary directory."""

import os

import pytest

SRCDIR = os.environ.get("TILE_SRCDIR") or os.path.dirname(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = os.path.join(SRCDIR, "examples")


@pytest.fixture
def example():
    """example("vadd") -> path of examples/vadd.tile."""
    return lambda name: os.path.join(EXAMPLES, name + ".tile")


@pytest.fixture
def source(tmp_path):
    """source(text, name="k.tile") -> path of a new file holding text."""
    def write(text, name="k.tile"):
        p = tmp_path / name
        p.write_text(text)
        return str(p)
    return write


@pytest.fixture(autouse=True)
def _no_env_interpret(monkeypatch):
    monkeypatch.delenv("TILE_INTERPRET", raising=False)

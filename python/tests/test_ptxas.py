"""Which ptxas makes a bundle's cubins when the package compiles
(tile._cache): $TILE_PTXAS when set; else tilec's own (configured or on
PATH, as its --version says); else a ptxas that a Python package carries,
nvidia-cuda-nvcc's before Triton's. The choice is part of the cache key.
Checked on package and tilec stand-ins, in fresh interpreters without site
packages (-S), so that what this machine has installed does not count."""

import os
import subprocess
import sys

import pytest

PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# A tilec stand-in: --version names $TILE_PTXAS when that is executable,
# else its "own" ptxas when $OWN_PTXAS is set, else none; each run adds a
# line to $TILEC_RUNS where that is set.
FAKE_TILEC = """\
import os, sys
assert sys.argv[1:] == ["--version"]
if os.environ.get("TILEC_RUNS"):
    open(os.environ["TILEC_RUNS"], "a").write("run\\n")
print("fake tilec 1")
p = os.environ.get("TILE_PTXAS") or os.environ.get("OWN_PTXAS")
print("ptxas: " + (p if p and os.access(p, os.X_OK) else "none (bundles hold PTX only)"))
"""

PROBE = """\
import json, os, sys
from tile import _cache
env = {k: v for k, v in os.environ.items() if k != "TILE_PTXAS"}
env.update(json.loads(sys.argv[2]))
before = dict(env)
ident = _cache.tilec_environment(sys.argv[1], env)
print(json.dumps({"packaged": _cache.packaged_ptxas(), "ptxas": env.get("TILE_PTXAS"),
                  "set": before.get("TILE_PTXAS") != env.get("TILE_PTXAS"), "ident": ident}))
"""


def _exe(path, text="#!/bin/sh\nexit 0\n"):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, 0o755)
    return str(path)


def _probe(tmp_path, sites, env_add=None):
    import json
    tilec = str(tmp_path / "tilec")
    if not os.path.exists(tilec):                 # once: its mtime is in the key
        _exe(tilec, f"#!{sys.executable}\n" + FAKE_TILEC)
    env = {k: v for k, v in os.environ.items() if k not in ("TILE_PTXAS", "OWN_PTXAS")}
    env["PYTHONPATH"] = os.pathsep.join([PYTHON_DIR] + [str(s) for s in sites])
    r = subprocess.run([sys.executable, "-S", "-c", PROBE, tilec, json.dumps(env_add or {})],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


@pytest.fixture
def sites(tmp_path):
    """Two site directories: Triton's ptxas in the first, nvidia-cuda-nvcc's
    (a namespace package, as pip installs it) in the second."""
    a, b = tmp_path / "site-a", tmp_path / "site-b"
    (a / "triton").mkdir(parents=True)
    (a / "triton" / "__init__.py").write_text("raise ImportError('located, never imported')\n")
    triton = _exe(str(a / "triton" / "backends" / "nvidia" / "bin" / "ptxas"))
    nvcc = _exe(str(b / "nvidia" / "cu13" / "bin" / "ptxas"))
    return a, b, triton, nvcc


def test_packaged_ptxas_prefers_nvcc_then_triton(tmp_path, sites):
    a, b, triton, nvcc = sites
    assert _probe(tmp_path, [a, b])["packaged"] == nvcc
    assert _probe(tmp_path, [a])["packaged"] == triton
    os.chmod(triton, 0o644)                       # not executable: not a ptxas
    assert _probe(tmp_path, [a])["packaged"] is None
    assert _probe(tmp_path, [])["packaged"] is None


def test_packaged_ptxas_only_where_tilec_has_none(tmp_path, sites):
    a, b, triton, nvcc = sites
    got = _probe(tmp_path, [a])
    assert got["set"] and got["ptxas"] == triton and f"ptxas: {triton}" in got["ident"]
    own = _exe(str(tmp_path / "toolkit" / "ptxas"))
    got = _probe(tmp_path, [a, b], {"OWN_PTXAS": own})
    assert not got["set"] and got["ptxas"] is None and f"ptxas: {own}" in got["ident"]
    chosen = _exe(str(tmp_path / "chosen" / "ptxas"))
    got = _probe(tmp_path, [a, b], {"TILE_PTXAS": chosen})
    assert not got["set"] and got["ptxas"] == chosen
    # $TILE_PTXAS naming nothing that runs is the user's choice (PTX only)
    got = _probe(tmp_path, [a, b], {"TILE_PTXAS": str(tmp_path / "missing")})
    assert not got["set"] and "ptxas: none" in got["ident"]


def test_packaged_ptxas_named_without_a_second_run(tmp_path, sites):
    """Choosing a packaged ptxas runs tilec --version once; the identity
    then holds the text tilec prints with $TILE_PTXAS set to it."""
    a, b, triton, nvcc = sites
    runs = tmp_path / "runs"
    got = _probe(tmp_path, [a], {"TILEC_RUNS": str(runs)})
    assert got["set"] and got["ptxas"] == triton
    assert runs.read_text().count("run") == 1
    env = dict(os.environ, TILE_PTXAS=triton)
    text = subprocess.run([str(tmp_path / "tilec"), "--version"], capture_output=True,
                          text=True, env=env).stdout.strip()
    assert got["ident"].startswith(text + "|")


def test_ptxas_is_part_of_the_cache_key(tmp_path, sites):
    """Another ptxas, or the same path rewritten, changes the identity."""
    a, b, triton, nvcc = sites
    first = _probe(tmp_path, [a])["ident"]
    assert _probe(tmp_path, [a])["ident"] == first
    assert _probe(tmp_path, [a, b])["ident"] != first
    _exe(triton, "#!/bin/sh\nexit 0\n# another build\n")
    assert _probe(tmp_path, [a])["ident"] != first

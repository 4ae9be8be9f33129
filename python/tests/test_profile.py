"""`tile profile` (tile/profile.py) without a GPU: the parse of Nsight
Compute's source page and the annotated listing, on a page that ncu
exported on the H200 (data/ncu-softmax-source.csv, see
scripts/gpu-wheel.sh), and the command's plumbing with a stand-in for ncu
that records how it was called."""

import os
import stat
import sys

import pytest

from conftest import SRCDIR
from tile import profile
from tile import __main__ as cli

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
CSV = os.path.join(DATA, "ncu-softmax-source.csv")


def _tables():
    return profile.line_tables(profile.functions(CSV))


def test_parse_real_page():
    """examples/softmax.py under ncu on the H200 (2026-12-02, docs/PERF.md):
    three launches of one configuration; the page's SASS rows (cut to two
    under each source line when recorded) are not source lines."""
    tables = _tables()
    assert [(t.name, t.launches, t.total) for t in tables] == \
        [("softmax__c12__a16 (softmax.tile)", 3, 7590.0)]
    t = tables[0]
    assert t.path.endswith("/examples/softmax.tile")
    assert sorted(t.samples) == [14, 17, 19, 20, 21, 22]
    assert max(t.samples, key=t.samples.get) == 21
    assert t.main_reasons(21) == [("long_sb", 3082.0), ("short_sb", 728.0), ("barrier", 383.0)]
    for line, s in t.samples.items():     # a line's reasons never exceed its samples
        assert sum(t.reasons[line].values()) <= s


def test_annotated_listing():
    """The recorded path is the H200's, not on disk here: the listing quotes
    ncu's text of each line, which is this tree's examples/softmax.tile."""
    t = _tables()[0]
    assert not os.path.exists(t.path)
    text = profile.annotate(t)
    assert text[0] == f"{t.name}: 7590 stall samples over 3 launches -- {t.path}"
    rows = {int(r[8:14]): r for r in text[2:] if r[8:14].strip().isdigit()}
    assert sorted(rows) == [14, 17, 19, 20, 21, 22]      # ncu quoted only these
    assert rows[21].split()[0] == "64.1%" and rows[21].endswith("long_sb=3082 short_sb=728 barrier=383")
    with open(os.path.join(SRCDIR, "examples", "softmax.tile")) as f:
        local = f.read().splitlines()
    assert local[20].strip() in rows[21]


def test_listing_shows_hot_regions_only(tmp_path):
    src = tmp_path / "k.tile"
    src.write_text("".join(f"// line {i}\n" for i in range(1, 31)))
    t = profile.LineTable("k__c0__g (k.tile)", str(src))
    hdr = ["Line No", "Source", profile.SAMPLES, "stall_wait", "stall_barrier (Not Issued)"]
    t.add(hdr, [["5", "x", "30", "20", "7"], ["25", "y", "10", "10", "0"]])
    t.add(hdr, [["5", "x", "10", "10", "0"]])
    assert (t.launches, t.total, t.reasons[5]) == (2, 50.0, {"wait": 30.0})
    lines = profile.annotate(t, context=1)
    shown = [r[8:14].strip() for r in lines[2:]]
    assert shown == ["4", "5", "6", "...", "24", "25", "26"]
    assert lines[3].split()[:2] == ["80.0%", "5"] and lines[3].endswith("wait=30")
    assert len(profile.annotate(t, full=True)) == 2 + 30


def test_csv_command(capsys):
    assert cli.main(["profile", "--csv", CSV]) == 0
    out = capsys.readouterr().out
    assert "stall reasons:" in out and _tables()[0].name in out


def test_csv_without_samples(tmp_path, capsys):
    empty = tmp_path / "e.csv"
    empty.write_text('"File Path","/x/k.tile"\n"Function Name","k__c0__g"\n"Line No","Source"\n"1","x"\n')
    assert profile.main(["--csv", str(empty)]) == 1
    assert "no warp-stall samples" in capsys.readouterr().out


def test_needs_one_input():
    with pytest.raises(SystemExit):
        profile.main([])
    with pytest.raises(SystemExit):
        profile.main(["--csv", CSV, "script.py"])


def test_without_ncu(monkeypatch, capsys):
    monkeypatch.setattr(profile, "find_ncu", lambda: None)
    assert profile.main(["script.py"]) == 2
    assert "ncu) not found" in capsys.readouterr().err


def test_runs_the_script_under_ncu(tmp_path, monkeypatch, capfd):
    """A stand-in ncu: profiling mode runs the target and writes a report
    beside a log of its arguments and of TILE_DEBUG; --import prints the
    recorded page."""
    log = tmp_path / "log"
    ncu = tmp_path / "ncu"
    ncu.write_text(f"""#!/bin/sh
if [ "$1" = --import ]; then echo "$@" >> {log}; cat {CSV}; exit 0; fi
echo "$@" TILE_DEBUG=$TILE_DEBUG >> {log}
while [ "$1" != -o ]; do shift; done
touch "$2"; shift 3
exec "$@"
""")
    ncu.chmod(ncu.stat().st_mode | stat.S_IXUSR)
    script = tmp_path / "s.py"
    script.write_text("import sys; print('ran', sys.argv[1:]); sys.exit(3)\n")
    monkeypatch.setenv("NCU", str(ncu))
    rep = tmp_path / "r.ncu-rep"
    assert profile.main(["-c", "4", "-o", str(rep), str(script), "a1"]) == 3
    out = capfd.readouterr().out
    assert "ran ['a1']" in out and "stall reasons:" in out
    run, imported = log.read_text().splitlines()
    assert f"-k {profile.TILE_KERNELS} -c 4 " in run and run.endswith("TILE_DEBUG=1")
    assert f"-o {rep} -f {sys.executable} {script} a1" in run
    assert imported.startswith(f"--import {rep} --page source --csv")


def test_program_target_runs_as_given():
    cmd = profile.ncu_command("ncu", "r.ncu-rep", ["./prog", "x.tlb"], "regex:k", 1)
    assert cmd[-2:] == ["./prog", "x.tlb"] and sys.executable not in cmd

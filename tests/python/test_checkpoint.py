"""Machine.save / Machine.restore (docs/checkpoint.md): a machine saved with
work in flight and restored in its place runs on exactly as the original."""

import pytest

from khdrive import dram, kohaku


def busy_machine():
    """A default machine with data in DRAM, some cycles on."""
    return busy_machine_params(None)


def busy_machine_params(params):
    m = kohaku.Machine(params=params)
    t = kohaku.SimTransport(m)
    data = bytes((i * 131 + 7) & 0xFF for i in range(4096))
    t.write_block(dram(0x10000), data)
    m.run(123)
    return m, t, data


def test_restored_machine_runs_on_like_the_original(tmp_path):
    m, t, data = busy_machine()
    path = str(tmp_path / "m.ck")
    m.save(path)
    r = kohaku.Machine.restore(path)
    assert r.cycles == m.cycles
    tr = kohaku.SimTransport(r)
    # the same host accesses on both (each costs the host link's time)
    assert tr.read_block(dram(0x10000), 4096) == data
    assert t.read_block(dram(0x10000), 4096) == data
    for mach in (m, r):
        mach.run(1000)
        mach.idle()
    assert r.cycles == m.cycles
    assert r.stats()["components"] == m.stats()["components"]
    assert r.stats()["links"] == m.stats()["links"]
    # save, restore, save: the same bytes
    m.save(str(tmp_path / "a.ck"))
    r.save(str(tmp_path / "b.ck"))
    assert open(tmp_path / "a.ck", "rb").read() == open(tmp_path / "b.ck", "rb").read()


def test_refused_files_name_what_breaks(tmp_path):
    m, _, _ = busy_machine()
    path = tmp_path / "m.ck"
    m.save(str(path))
    blob = path.read_bytes()
    (tmp_path / "short.ck").write_bytes(blob[: len(blob) // 2])
    with pytest.raises(kohaku.KohakuError, match="truncated"):
        kohaku.Machine.restore(str(tmp_path / "short.ck"))
    with pytest.raises(kohaku.KohakuError, match="cannot open") as e:
        kohaku.Machine.restore(str(tmp_path / "none.ck"))
    assert e.value.status == "KH_E_IO"


@pytest.mark.parametrize("form", ["node", "unit"])
def test_the_rv64_core_is_saved_and_restored(tmp_path, form):
    """A machine with the RV64 core, as the node's processor (cpu_rv64 = 1)
    or as a mesh unit (map token r64), is saved (both were refused before
    their state was covered), restored, and runs on as the original; saved
    again, the same bytes. (RV64 programs saved mid-run: tests/t_ckpt.c,
    tests/cli/ckpt.sh.)"""
    if form == "node":
        m, _, _ = busy_machine_params({"cpu_rv64": 1})
    else:
        (tmp_path / "r64.txt").write_text("xxx r64 vec xxx\nmag mat mat xxx\nmag mat mat xxx\nxxx mat vec xxx\n")
        m = kohaku.Machine(str(tmp_path / "r64.txt"))
        m.run(123)
    path = str(tmp_path / "r64.ck")
    m.save(path)
    r = kohaku.Machine.restore(path)
    assert r.cycles == m.cycles
    for mach in (m, r):
        mach.run(5000)
        mach.idle()
    assert r.cycles == m.cycles
    assert r.stats()["components"] == m.stats()["components"]
    m.save(str(tmp_path / "a.ck"))
    r.save(str(tmp_path / "b.ck"))
    assert open(tmp_path / "a.ck", "rb").read() == open(tmp_path / "b.ck", "rb").read()

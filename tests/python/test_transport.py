"""SimTransport: upstream's transport surface over a kohaku Machine."""

import os

import pytest

from khdrive import CAPS, CTRL, MAPS, PROG_KICK, PROG_LEN, dram, kohaku


def fresh(**kw):
    m = kohaku.Machine(**kw)
    return m, kohaku.SimTransport(m)


def test_surface():
    m, t = fresh()
    assert t.bulk is True
    for name in ("write64", "read64", "write_block", "read_block"):
        assert callable(getattr(t, name))
    assert kohaku.api_version()[0] == 1


def test_caps_reads_what_control_md_says():
    # CAPS (control.md §2.2): FLIT_WIDTH 288, POS_WIDTH 4, the default map's grid 1..2
    m, t = fresh()
    v = t.read64(CTRL + CAPS)
    assert v & 0xFFFF == 288 and (v >> 16) & 0xFF == 4 and (v >> 24) & 0xFF == 1 and (v >> 32) & 0xFF == 2


def test_block_equals_word_accesses():
    data = bytes((i * 37 + 11) & 0xFF for i in range(256))
    m1, t1 = fresh()
    t1.write_block(dram(0x1000), data)
    m2, t2 = fresh()
    for k in range(0, len(data), 8):
        t2.write64(dram(0x1000) + k, int.from_bytes(data[k:k + 8], "little"))
    assert t1.read_block(dram(0x1000), 256) == data
    assert b"".join(t2.read64(dram(0x1000) + k).to_bytes(8, "little") for k in range(0, 256, 8)) == data
    # little-endian: byte k of the block is byte k mod 8 of word k div 8
    assert t1.read64(dram(0x1008)) == int.from_bytes(data[8:16], "little")


@pytest.mark.parametrize("call", [
    lambda t: t.write64(dram(0x1004), 1),
    lambda t: t.read64(CTRL + 0x12),
    lambda t: t.write_block(dram(0x1001), bytes(8)),
    lambda t: t.read_block(dram(0x1003), 8),
    lambda t: t.write_block(dram(0x1000), bytes(12)),
    lambda t: t.read_block(dram(0x1000), 20),
])
def test_unaligned_or_partial_raises_value_error_and_changes_nothing(call):
    m, t = fresh()
    t.write_block(dram(0x1000), bytes(range(32)))
    before, cycles = t.read_block(dram(0x1000), 32), m.cycles
    with pytest.raises(ValueError):
        call(t)
    assert m.cycles == cycles
    assert t.read_block(dram(0x1000), 32) == before


def test_unmapped_access_names_the_address_and_changes_nothing():
    m, t = fresh()
    t.write_block(dram(0x40), bytes(range(64)))
    with pytest.raises(kohaku.KohakuError) as e:
        t.write_block(0x7000_0000, bytes(16))
    assert "0x70000000" in str(e.value) and e.value.status == "KH_E_UNMAPPED"
    with pytest.raises(kohaku.KohakuError) as e:
        t.read64(0x7000_0008)
    assert "0x70000008" in str(e.value)
    # a block running off the window is refused before any word is written
    with pytest.raises(kohaku.KohakuError):
        t.write_block(CTRL + 0xFFF8, bytes(16))
    assert t.read_block(dram(0x40), 64) == bytes(range(64))


def test_host_accesses_cost_the_link_time():
    # docs/host-link.md: 84 cycles a write, 81 a read, a memory burst
    # 84 + 3 per further beat; host-zero takes none
    m, t = fresh()
    c = m.cycles
    t.write64(dram(0), 1)
    assert m.cycles - c == 84
    t.read64(CTRL + CAPS)
    assert m.cycles - c == 84 + 81
    t.write_block(dram(0x100), bytes(64))
    assert m.cycles - c == 84 + 81 + 84 + 7 * 3
    z, tz = fresh(profile="host-zero")
    c = z.cycles
    tz.write_block(dram(0x100), bytes(64))
    tz.read64(CTRL + CAPS)
    assert z.cycles == c
    p, tp = fresh(params={"host_write_cycles": 10, "host_read_cycles": 7})
    c = p.cycles
    tp.write64(dram(0), 1)
    tp.read64(dram(0))
    assert p.cycles - c == 17


def test_reading_an_idle_register_twice_is_fine_but_a_hopeless_poll_raises():
    m, t = fresh()
    assert t.read64(CTRL + CAPS) == t.read64(CTRL + CAPS)
    # a poll for a value that never comes: PROG_STAT.run with nothing kicked
    with pytest.raises(kohaku.StuckError) as e:
        for _ in range(1000):
            if t.read64(CTRL + 0x58) & 1:
                break
    msg = str(e.value)
    assert "0x800058" in msg and "PROG_STAT" in msg and "nothing" in msg
    assert isinstance(e.value, TimeoutError)


def test_a_poll_that_will_succeed_does_not_raise():
    # a kick of one flit to an empty slot's target: PROG_STAT.run goes 1 then 0
    m, t = fresh()
    t.write64(CTRL + PROG_LEN, 1)
    t.write64(CTRL + 0x60, 4)
    t.write64(CTRL + 0x40, (0 << 4) | 1)
    t.write64(CTRL + PROG_KICK, 1)
    for _ in range(100):
        if not t.read64(CTRL + 0x58) & 1:
            break
    else:
        pytest.fail("the dispatch never ended")


def test_machine_cycles_run_idle_stats_trace(tmp_path):
    m, t = fresh()
    c = m.cycles
    m.run(100)
    assert m.cycles == c + 100
    m.idle()
    st = m.stats()
    assert st["cycle"] == m.cycles and "links" in st and "components" in st
    path = tmp_path / "t.json"
    m.trace(path)
    t.write64(dram(0), 5)
    m.trace(None)
    assert path.read_text().lstrip().startswith(("[", "{"))


def test_bad_machine_names_the_problem():
    with pytest.raises(kohaku.KohakuError) as e:
        kohaku.Machine(os.path.join(MAPS, "no_such_map.txt"))
    assert "no_such_map.txt" in str(e.value)
    with pytest.raises(kohaku.KohakuError) as e:
        kohaku.Machine(params={"dram_lat": 2_000_000})
    assert "dram_lat" in str(e.value)
    with pytest.raises(kohaku.KohakuError) as e:
        kohaku.Machine(profile="nope")
    assert "nope" in str(e.value)


def test_two_machines_are_independent():
    a, ta = fresh()
    b, tb = fresh()
    ta.write64(dram(0), 0xAAAA)
    tb.write64(dram(0), 0xBBBB)
    assert ta.read64(dram(0)) == 0xAAAA and tb.read64(dram(0)) == 0xBBBB

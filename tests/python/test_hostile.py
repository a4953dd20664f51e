"""The Python package against a careless or hostile caller: out-of-range
and wrongly typed arguments are refused naming the value, before anything
reaches the library (ctypes would wrap -8 to 2**64 - 8 and 2**64 + a to a
silently), and nothing in the machine changes; closed machines stay closed;
two machines in one process are independent and are collected cleanly."""

import gc

import pytest

from khdrive import CAPS, CTRL, dram, kohaku

CAPS_ADDR = CTRL + CAPS


def fresh(**kw):
    m = kohaku.Machine(**kw)
    return m, kohaku.SimTransport(m)


def unchanged(m, t, before):
    """The cycle count, the access count and DRAM word 0 are as before."""
    assert (m.cycles, m.accesses) == before
    assert m.dram_read(0, 0, 8) == bytes(8)


@pytest.mark.parametrize("addr", [1 << 64, (1 << 64) + CAPS_ADDR, -8, -(1 << 64) + CAPS_ADDR])
def test_an_address_outside_64_bits_is_refused_not_wrapped(addr):
    m, t = fresh()
    before = (m.cycles, m.accesses)
    with pytest.raises(ValueError, match=f"host address {addr:#x} is outside"):
        t.read64(addr)
    with pytest.raises(ValueError, match="host address"):
        t.write64(addr, 1)
    with pytest.raises(ValueError, match="host address"):
        t.write_block(addr, bytes(8))
    with pytest.raises(ValueError, match="host address"):
        t.read_block(addr, 8)
    unchanged(m, t, before)


@pytest.mark.parametrize("addr", [8.0, "0x800010", None, b"\x10"])
def test_an_address_that_is_not_an_integer_is_a_type_error(addr):
    m, t = fresh()
    with pytest.raises(TypeError, match="host address must be an integer"):
        t.read64(addr)
    with pytest.raises(TypeError, match="host address must be an integer"):
        t.write64(addr, 0)


def test_data_wider_than_64_bits_is_refused():
    m, t = fresh()
    before = (m.cycles, m.accesses)
    with pytest.raises(ValueError, match=r"write64 at 0x10000000000: data 0x10000000000000005 does not fit"):
        t.write64(dram(0), (1 << 64) + 5)
    unchanged(m, t, before)
    t.write64(dram(0), -1)  # a signed 64-bit value is still its two's complement
    assert t.read64(dram(0)) == (1 << 64) - 1


def test_a_negative_block_size_is_refused():
    m, t = fresh()
    with pytest.raises(ValueError, match="block size -0x8 is outside"):
        t.read_block(dram(0), -8)


def test_negative_or_huge_cycle_counts_are_refused_and_run_nothing():
    m, t = fresh()
    m.run(10)
    with pytest.raises(ValueError, match="run: cycle count -0x1 is outside"):
        m.run(-1)
    with pytest.raises(ValueError, match="idle: limit -0x1"):
        m.idle(-1)
    assert m.cycles == 10
    # within 64 bits but past the clock's end (2^62): the library refuses it
    with pytest.raises(kohaku.KohakuError, match="would pass its end, cycle 2\\^62") as e:
        m.run((1 << 64) - 1)
    assert e.value.status == "KH_E_ARG"
    assert m.cycles == 10


def test_the_dram_backdoor_refuses_what_would_alias():
    m, t = fresh(params={"dram_words_log2": 7})  # 4 KiB of DRAM
    with pytest.raises(kohaku.KohakuError, match="offset 0x1000 run past its populated 0x1000 bytes"):
        m.dram_write(0, 4096, b"\xa5" * 8)
    with pytest.raises(ValueError, match="dram_read: offset -0x40"):
        m.dram_read(0, -64, 8)
    with pytest.raises(ValueError, match="dram_write: mesh -0x1"):
        m.dram_write(-1, 0, b"x" * 8)
    assert m.dram_read(0, 0, 8) == bytes(8)  # offset 0 (the alias) untouched


def test_a_closed_machine_stays_closed():
    m, t = fresh()
    m.close()
    m.close()  # twice is fine
    assert "closed" in repr(m)
    for call in (lambda: m.cycles, lambda: m.run(1), lambda: m.stats(), lambda: t.read64(CAPS_ADDR),
                 lambda: t.write64(CAPS_ADDR, 0), lambda: m.dram_read(0, 0, 8)):
        with pytest.raises(kohaku.KohakuError, match="the machine is closed"):
            call()


def test_a_failed_open_leaves_nothing_behind():
    with pytest.raises(kohaku.KohakuError) as e:
        kohaku.Machine("default", params={"no_such_parameter": 1})
    assert "no_such_parameter" in str(e.value)
    gc.collect()  # __del__ of the half-built object must not raise or crash


def test_two_machines_are_independent_and_collected():
    m1, t1 = fresh()
    m2, t2 = fresh()
    t1.write64(dram(0), 0x1111)
    t2.write64(dram(0), 0x2222)
    m2.run(500)
    assert t1.read64(dram(0)) == 0x1111 and t2.read64(dram(0)) == 0x2222
    assert m2.cycles > m1.cycles + 400
    c1 = m1.cycles
    del t2, m2
    gc.collect()
    assert t1.read64(dram(0)) == 0x1111 and m1.cycles > c1

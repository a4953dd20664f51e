"""Discovery over the mailbox finds every unit of every shipped map:
CU_CTRL requests with src (0,0), replies to the agent's RX (control.md
Open point 16, cpu_mode default)."""

import glob
import os

import pytest

from khdrive import MAPS, discover, kohaku, map_units

MAP_FILES = sorted(glob.glob(os.path.join(MAPS, "*.txt")))


@pytest.mark.parametrize("path", MAP_FILES, ids=os.path.basename)
def test_every_unit_answers_as_itself(path):
    m = kohaku.Machine(path)
    t = kohaku.SimTransport(m)
    found = discover(t, m)
    want = map_units(path)
    # the node's control processor answers at (0,0) once the machine builds
    # one (cpu.md; it needs a memory port at (0,1), control.md Open point 11)
    cpu = found.pop((0, 0), None)
    if cpu is not None:
        assert (cpu >> 48).to_bytes(2, "big") == b"RC", hex(cpu)
    assert set(found) == set(want)
    for xy, caps in found.items():
        cu_type = (caps >> 48).to_bytes(2, "big").decode()
        assert cu_type.isalnum(), (xy, hex(caps))


@pytest.mark.parametrize("mode,finds", [("agent", True), ("drop", False)])
def test_the_00_option_decides_where_replies_go(mode, finds):
    # Open point 16: `agent` hands every reply to the agent's RX (no
    # processor); `drop` drops flits to (0,0), so the mailbox stays empty
    path = os.path.join(MAPS, "mesh_2x2_6+2.txt")
    m = kohaku.Machine(path, params={"cpu_mode": mode})
    found = discover(kohaku.SimTransport(m), m)
    assert set(found) == (set(map_units(path)) if finds else set())


def test_upstream_style_exchange_needs_no_wait_with_the_link_time():
    # one read of RX_STATUS right after TX_KICK (as a driver written for the
    # card does) already finds the reply: the kick's write took 84 cycles
    from khdrive import CTRL, RX_STATUS, TX_FLIT, TX_KICK, T_CU_CTRL, flit, header, words
    m = kohaku.Machine()
    t = kohaku.SimTransport(m)
    req = flit(header((2, 3), (0, 0), T_CU_CTRL, txn=1, last=1), 0)
    for k, w in enumerate(words(req)):
        t.write64(CTRL + TX_FLIT + 8 * k, w)
    t.write64(CTRL + TX_KICK, 1)
    assert not t.read64(CTRL + RX_STATUS) & (1 << 16)
    z = kohaku.Machine(profile="host-zero")
    tz = kohaku.SimTransport(z)
    for k, w in enumerate(words(req)):
        tz.write64(CTRL + TX_FLIT + 8 * k, w)
    tz.write64(CTRL + TX_KICK, 1)
    assert tz.read64(CTRL + RX_STATUS) & (1 << 16)  # zero time: nothing yet

"""A small host driver of our own for the Python tests (never upstream's
code): flits built from the bit positions of the spec digest (flits.md §2,
control.md §2.2), the driver sequence of control.md §4, discovery over the
mailbox (control.md §2.7, Open point 16)."""

import os
import re
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
BUILD = os.environ.get("BUILD", "build")
os.environ.setdefault("KOHAKU_LIB", os.path.join(ROOT, BUILD, "libkohaku.so"))
KOHAKU = os.path.join(ROOT, BUILD, "kohaku")
MAPS = os.path.join(ROOT, "data", "maps")

import kohaku  # noqa: E402

MASK64 = (1 << 64) - 1
CTRL = 0x80_0000                 # mesh 0's node control window (control.md §9.2)
CAPS, PROG_DST, PROG_LEN, PROG_KICK, PROG_STAT = 0x10, 0x40, 0x48, 0x50, 0x58
PROG_CRED, PROG_BASE, SIG_DONE = 0x60, 0x68, 0x70
TX_FLIT, TX_KICK, RX_FLIT, RX_POP, RX_STATUS = 0x100, 0x140, 0x180, 0x1C0, 0x1C8
STAGE = 0x2000
T_CU_INST, T_CU_CTRL = 0x5, 0x7


def dram(off, mesh=0):
    """Mesh 0's DRAM in the host map: (N+1) << 40, N << 36 (control.md §9.2)."""
    return ((mesh + 1) << 40) + (mesh << 36) + off


def node_status(x, y):
    return CTRL + 0x1000 + 8 * ((y << 4) | x)


def header(dst, src, typ, txn=0, last=0):
    """The 32-bit header, flit[287:256] (flits.md §2)."""
    return (dst[0] << 28) | (dst[1] << 24) | (src[0] << 20) | (src[1] << 16) | (typ << 12) | (txn << 4) | (last << 3)


def flit(hdr, payload):
    return (hdr << 256) | payload


def words(f):
    """A flit as the five host words (flits.md §8): payload first, header last."""
    return [(f >> (64 * k)) & MASK64 for k in range(5)]


def stage(t, slot, f):
    t.write_block(CTRL + STAGE + 40 * slot, b"".join(w.to_bytes(8, "little") for w in words(f)))


def kick(t, dst, base, n, credit=4):
    """control.md §4: wait for the dispatcher, then base, length, target, credit, kick."""
    while t.read64(CTRL + PROG_STAT) & 1:
        pass
    t.write64(CTRL + PROG_BASE, base)
    t.write64(CTRL + PROG_LEN, n)
    t.write64(CTRL + PROG_DST, (dst[1] << 4) | dst[0])
    t.write64(CTRL + PROG_CRED, credit)
    t.write64(CTRL + PROG_KICK, 1)


def wait_count(t, xy, count):
    """Poll the unit's status mirror word until its count reaches `count`."""
    a = node_status(*xy)
    while True:
        v = t.read64(a)
        if (v >> 8) & 0xFFFF >= count:
            return v


def ctrl_read(t, m, coord, index=0):
    """CU_CTRL read of `index` at coord through the mailbox, src (0,0): the
    reply comes back to the agent's RX (Open point 16). The value, or None
    when nothing at coord answered as itself."""
    while not t.read64(CTRL + RX_STATUS) & (1 << 16):
        t.write64(CTRL + RX_POP, 1)
    req = flit(header(coord, (0, 0), T_CU_CTRL, txn=1, last=1), index << 240)
    for k, w in enumerate(words(req)):
        t.write64(CTRL + TX_FLIT + 8 * k, w)
    t.write64(CTRL + TX_KICK, 1)
    m.idle()
    if t.read64(CTRL + RX_STATUS) & (1 << 16):
        return None
    reply = 0
    for k in range(5):
        reply |= t.read64(CTRL + RX_FLIT + 8 * k) << (64 * k)
    t.write64(CTRL + RX_POP, 1)
    hdr, pay = reply >> 256, reply & ((1 << 256) - 1)
    src = ((hdr >> 20) & 0xF, (hdr >> 16) & 0xF)
    if (hdr >> 12) & 0xF != T_CU_CTRL or pay >> 248 != 2 or src != tuple(coord):
        return None
    return (pay >> 176) & MASK64


def discover(t, m):
    """Every coordinate of the grid and its edge ring that answers CU_CAPS."""
    caps = t.read64(CTRL + CAPS)
    lo, hi = (caps >> 24) & 0xFF, (caps >> 32) & 0xFF
    found = {}
    for y in range(max(0, lo - 1), hi + 2):
        for x in range(max(0, lo - 1), hi + 2):
            v = ctrl_read(t, m, (x, y))
            if v is not None:
                found[(x, y)] = v
    return found


def map_units(path):
    """The units of a map as `kohaku mesh` lists them: {(x, y): token}."""
    out = subprocess.run([KOHAKU, "mesh", path], capture_output=True, text=True, check=True).stdout
    units = {}
    for line in out.splitlines():
        m = re.match(r"\((\d+),(\d+)\)\s+(\S+)\s+unit\b", line)
        if m:
            units[(int(m.group(1)), int(m.group(2)))] = m.group(3)
    return units

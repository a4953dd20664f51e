"""A machine whose vector units are V2 cores (vec_core_v2=1, docs/vector2.md)
driven from Python like any unit: examples/vector2_silu.session's uploads
and staged payloads (a matmul on (1,1), then a V2 silu of its drain words on
(1,0)) through SimTransport; the epilogue checked with numpy against the C
the machine produced."""

import os
import re

import numpy as np

from khdrive import MAPS, ROOT, T_CU_INST, dram, flit, header, kick, kohaku, stage, wait_count


def session_groups(path):
    """The uploads, and each kicked group of staged payloads with its node."""
    uploads, groups, cur = [], [], []
    for line in open(path):
        line = line.split("#", 1)[0].strip()
        m = re.match(r"upload DRAM\((0x[0-9a-f]+)\) hex (\S+)$", line)
        if m:
            uploads.append((int(m.group(1), 16), bytes.fromhex(m.group(2))))
        m = re.match(r"stage (\d+) txn=(0x[0-9a-f]+) last=(\d) payload=([0-9a-f_]+)$", line)
        if m:
            cur.append((int(m.group(1)), int(m.group(2), 16), int(m.group(3)), int(m.group(4).replace("_", ""), 16)))
        m = re.match(r"write PROG_DST XY\((\d+),(\d+)\)$", line)
        if m:
            groups.append(((int(m.group(1)), int(m.group(2))), cur))
            cur = []
    return uploads, groups


def test_v2_silu_after_a_matmul_from_python():
    uploads, groups = session_groups(os.path.join(ROOT, "examples", "vector2_silu.session"))
    assert [g[0] for g in groups] == [(1, 1), (1, 0)]
    m = kohaku.Machine(os.path.join(MAPS, "mesh_1x1_2+2.txt"), params={"vec_core_v2": 1})
    t = kohaku.SimTransport(m)
    for off, b in uploads:
        t.write_block(dram(off), b)
    for node, stages in groups:
        for slot, txn, last, pay in stages:
            stage(t, slot, flit(header((0, 0), (0, 0), T_CU_INST, txn=txn, last=last), pay))
        kick(t, node, 0, len(stages))
        st = wait_count(t, node, len(stages))  # one completion a payload
        assert st >> 56 == 1 and (st >> 24) & 0xFF == stages[-1][1]  # BATCH_COMPLETE with the last txn
        m.idle()
    # C: word h of row group g holds C[4g + i][4h + j] at lane 4i + j
    words = np.frombuffer(t.read_block(dram(0x11000), 512), np.float16).reshape(16, 4, 4)
    c = np.zeros((16, 16))
    for w in range(16):
        g, h = divmod(w, 4)
        c[4 * g:4 * g + 4, 4 * h:4 * h + 4] = words[w]
    assert np.abs(c).max() > 0.5
    y = np.frombuffer(t.read_block(dram(0x12000), 512), np.float16).astype(np.float64).reshape(16, 16)
    want = c / (1 + np.exp(-c))
    assert np.abs(y - want).max() / np.abs(want).max() < 2 ** -8
    m.close()

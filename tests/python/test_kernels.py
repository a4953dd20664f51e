"""Driving units as upstream's driver does, through SimTransport: upload
operands, stage, kick, poll, read back; results computed independently with
numpy."""

import os
import re
import struct

import numpy as np

from khdrive import (CTRL, MAPS, ROOT, SIG_DONE, T_CU_INST, dram, flit, header, kick, kohaku, stage,
                     wait_count)


def saxpy_payload(n, a, x, y):
    """matmul_saxpy.md §2.2: op [255:248] = 1, n [247:224], a [223:192]
    (float32 bits), x_addr [167:128], y_addr [103:64]."""
    (abits,) = struct.unpack("<I", struct.pack("<f", a))
    return (1 << 248) | (n << 224) | (abits << 192) | (x << 128) | (y << 64)


def test_saxpy_on_both_units_back_to_back():
    m = kohaku.Machine(os.path.join(MAPS, "saxpy_map.txt"))
    t = kohaku.SimTransport(m)
    rng = np.random.default_rng(7)
    # the unit's datapath is integer-exact on whole numbers (matmul_saxpy.md §2.4)
    x0 = rng.integers(-100, 100, 64).astype(np.float32)
    y0 = rng.integers(-1000, 1000, 64).astype(np.float32)
    x1 = rng.integers(-50, 50, 40).astype(np.float32)
    y1 = rng.integers(-500, 500, 40).astype(np.float32)
    t.write_block(dram(0x1000), x0.tobytes())
    t.write_block(dram(0x2000), y0.tobytes())
    t.write_block(dram(0x3000), x1.tobytes())
    t.write_block(dram(0x4000), y1.tobytes())
    t.write64(CTRL + SIG_DONE, 0)
    stage(t, 0, flit(header((0, 0), (0, 0), T_CU_INST, txn=0x11, last=1), saxpy_payload(64, 3.0, 0x1000, 0x2000)))
    stage(t, 1, flit(header((0, 0), (0, 0), T_CU_INST, txn=0x22, last=1), saxpy_payload(40, -2.0, 0x3000, 0x4000)))
    # upstream's kick order for A, then at once for B (issue 10 point 2)
    kick(t, (1, 0), 0, 1)
    kick(t, (1, 2), 1, 1)
    st0 = wait_count(t, (1, 0), 1)
    st2 = wait_count(t, (1, 2), 1)
    assert st0 >> 56 == 1 and (st0 >> 24) & 0xFFFFFFFF == 0x11  # BATCH_COMPLETE, arg = txn
    assert st2 >> 56 == 1 and (st2 >> 24) & 0xFFFFFFFF == 0x22
    m.idle()
    r0 = np.frombuffer(t.read_block(dram(0x2000), 256), np.float32)
    r1 = np.frombuffer(t.read_block(dram(0x4000), 160), np.float32)
    assert np.array_equal(r0, 3.0 * x0 + y0)
    assert np.array_equal(r1, -2.0 * x1 + y1)
    assert t.read64(CTRL + SIG_DONE) & 0xFFFF == 2


def session_program(path):
    """The uploads and staged CU_INSTs of a session file (payloads made with
    `kohaku asm`, docs/vector.md)."""
    uploads, stages = [], []
    for line in open(path):
        line = line.split("#", 1)[0].strip()
        m = re.match(r"upload DRAM\((0x[0-9a-f]+)\) hex (\S+)$", line)
        if m:
            uploads.append((int(m.group(1), 16), bytes.fromhex(m.group(2))))
        m = re.match(r"stage (\d+) txn=(0x[0-9a-f]+) last=(\d) payload=([0-9a-f_]+)$", line)
        if m:
            stages.append((int(m.group(1)), int(m.group(2), 16), int(m.group(3)), int(m.group(4).replace("_", ""), 16)))
    return uploads, stages


def test_vector_kernel_y_is_2x_plus_1():
    uploads, stages = session_program(os.path.join(ROOT, "examples", "vector_scale.session"))
    m = kohaku.Machine(os.path.join(MAPS, "mesh_1x1_min.txt"))
    t = kohaku.SimTransport(m)
    for off, b in uploads:
        t.write_block(dram(off), b)
    for slot, txn, last, pay in stages:
        stage(t, slot, flit(header((0, 0), (0, 0), T_CU_INST, txn=txn, last=last), pay))
    kick(t, (1, 0), 0, len(stages), credit=32)
    wait_count(t, (1, 0), len(stages))
    m.idle()
    x = np.frombuffer(b"".join(b for _, b in uploads), np.float16)
    y = np.frombuffer(t.read_block(dram(0x2000), 256), np.float16)
    assert np.array_equal(y, (x.astype(np.float32) * 2 + 1).astype(np.float16))

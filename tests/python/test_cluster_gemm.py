"""A cluster GEMM driven from Python (cluster.md §9): C = A·Btᵀ on one
cluster, operands quantised by the mover (XFORM, occupant 1) on the default
machine, or on the read path under read_quant (cluster.md §11); both paths
use the same quantiser, so their results must agree bit for bit, and both
must be near numpy's float product (MXFP7 carries 6 bits of mantissa)."""

import numpy as np
import pytest

from khdrive import CTRL, T_CU_INST, dram, flit, header, kick, kohaku, stage, wait_count

AUX_CFG, AUX_STAT = 0x800, 0x78
GM, GN, BC = 2, 2, 2                 # one output tile: 8 x 8 outputs, K = 64
M, N, K = 4 * GM, 4 * GN, 32 * BC
A_SRC, B_SRC, A_IMG, B_IMG, C_IMG = 0x10000, 0x20000, 0x30000, 0x40000, 0x50000
CLUSTER = (1, 1)                     # a router-local cluster of the default map


def fp16_image(x, groups):
    """The FP16 tile-major image (cluster.md §9.1) of a [4*groups][32*BC]
    operand with one tile and one chunk: entry (g, b) = 8 words, word
    2L + half = lane 4g+L, K 32b + 16 half + 0..15."""
    return x.reshape(groups, 4, BC, 2, 16).transpose(0, 2, 1, 3, 4).astype("<f2").tobytes()


def cluster_inst(op, **f):
    """cluster.md §2 at the bit positions of the instruction table; nk 1
    and anchor 40 unless given."""
    f.setdefault("nk", 1)
    f.setdefault("anchor", 40)
    pos = {"n": 202, "sel": 201, "acc": 200, "gm": 192, "gn": 184, "nk": 176, "anchor": 168,
           "preq": 141, "eoff": 133, "abank": 114, "bbank": 113, "fbank": 112}
    w = op << 252
    addr = f.pop("addr", 0)
    w |= (addr & ((1 << 34) - 1)) << 218 | (addr >> 34) << 63
    for k, v in f.items():
        w |= v << pos[k]
    return w


def mover_quantise(t, src, img, entries, mode):
    """One XFORM move (cluster.md §9.2 recipe 1, memory.md §11.1 fields)."""
    cfg = CTRL + AUX_CFG
    t.write64(cfg + 0x10, (0 << 0) | (src << 4) | (1 << 44) | (1 << 47) | (mode << 55))  # src walker, occupant 1
    t.write64(cfg + 0x18, (0 << 0) | (0 << 1) | ((8 * entries) << 4) | (32 << 20))
    t.write64(cfg + 0x20, 0)
    t.write64(cfg + 0x10, 1 | (img << 4) | (1 << 44))                                   # dst walker
    t.write64(cfg + 0x18, 1 | (0 << 1) | (entries << 4) | (128 << 20))
    t.write64(cfg + 0x20, 0)
    t.write64(cfg + 0x00, 5 | (1 << 3) | (1 << 16))                                      # XFORM, e16, GO
    while t.read64(CTRL + AUX_STAT) & 1:
        pass


def run_gemm(read_quant, a, bt):
    m = kohaku.Machine(params={"read_quant": 1} if read_quant else {})
    t = kohaku.SimTransport(m)
    t.write_block(dram(A_SRC), fp16_image(a, GM))
    t.write_block(dram(B_SRC), fp16_image(bt, GN))
    if read_quant:
        a_at, b_at, preq = A_SRC, B_SRC, 0      # FP16 entries, quantised on the read path
    else:
        mover_quantise(t, A_SRC, A_IMG, GM * BC, 0)
        mover_quantise(t, B_SRC, B_IMG, GN * BC, 1)
        a_at, b_at, preq = A_IMG, B_IMG, 1      # MXFP7 images; preq 1 keeps the read plain
    prog = [
        cluster_inst(1, addr=a_at, n=GM * BC, sel=0, preq=preq),
        cluster_inst(1, addr=b_at, n=GN * BC, sel=1, preq=preq),
        cluster_inst(2, gm=GM, gn=GN, nk=BC),
        cluster_inst(3, addr=C_IMG, n=GM * GN),
    ]
    for s, p in enumerate(prog):
        stage(t, s, flit(header((0, 0), (0, 0), T_CU_INST, txn=0x33, last=int(s == len(prog) - 1)), p))
    kick(t, CLUSTER, 0, len(prog), credit=8)
    st = wait_count(t, CLUSTER, len(prog))
    m.idle()
    img = np.frombuffer(t.read_block(dram(C_IMG), 32 * GM * GN), "<f2").reshape(GM, GN, 4, 4)
    return st, img.transpose(0, 2, 1, 3).reshape(M, N).astype(np.float32)


@pytest.fixture(scope="module")
def operands():
    rng = np.random.default_rng(11)
    a = rng.normal(0, 1, (M, K)).astype(np.float16)
    bt = rng.normal(0, 1, (N, K)).astype(np.float16)
    return a, bt


def test_mover_and_read_path_quantisation_agree_and_are_right(operands):
    a, bt = operands
    ref = a.astype(np.float32) @ bt.astype(np.float32).T
    st0, c0 = run_gemm(False, a, bt)
    st1, c1 = run_gemm(True, a, bt)
    assert st0 >> 56 == 1 and st1 >> 56 == 1          # BATCH_COMPLETE, no fault
    assert np.array_equal(c0, c1)
    err = np.linalg.norm(c0 - ref) / np.linalg.norm(ref)
    assert err < 0.05, err
    assert np.abs(c0 - ref).max() < 0.25 * np.abs(ref).max()


def test_fp16_entries_without_the_option_are_not_quantised(operands):
    # the seed-era machine ignores preq: FP16 bytes read as MXFP7 give nonsense
    a, bt = operands
    m_ok = run_gemm(True, a, bt)[1]
    m = kohaku.Machine()
    t = kohaku.SimTransport(m)
    t.write_block(dram(A_SRC), fp16_image(a, GM))
    t.write_block(dram(B_SRC), fp16_image(bt, GN))
    prog = [cluster_inst(1, addr=A_SRC, n=GM * BC, sel=0), cluster_inst(1, addr=B_SRC, n=GN * BC, sel=1),
            cluster_inst(2, gm=GM, gn=GN, nk=BC), cluster_inst(3, addr=C_IMG, n=GM * GN)]
    for s, p in enumerate(prog):
        stage(t, s, flit(header((0, 0), (0, 0), T_CU_INST, txn=0x33, last=int(s == 3)), p))
    kick(t, CLUSTER, 0, 4, credit=8)
    with pytest.warns(kohaku.DiagnosticWarning, match="read_quant=1"):  # and says so (docs/diagnostics.md)
        wait_count(t, CLUSTER, 4)
        m.idle()
    raw = np.frombuffer(t.read_block(dram(C_IMG), 32 * GM * GN), "<f2").reshape(GM, GN, 4, 4)
    assert not np.array_equal(raw.transpose(0, 2, 1, 3).reshape(M, N).astype(np.float32), m_ok)

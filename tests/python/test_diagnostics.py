"""Diagnostics through Python (docs/diagnostics.md): the older compiler's
form (FP16 operands FILLed on a machine without the read-path quantiser,
cluster.md §11) is a kohaku.DiagnosticWarning once per machine, a
kohaku.DiagnosticError under strict; and the profile upstream-7703ee8
answers where upstream's Card() without a board looks (its default board:
control windows at 0x4_0080_0000 + N * 0x1_0000, mesh 0's DRAM at 0 with
the driver's scratch in its last megabyte, 0xfff00000)."""

import warnings

import numpy as np
import pytest

from khdrive import T_CU_INST, dram, flit, header, kick, kohaku, stage, wait_count
from test_cluster_gemm import A_SRC, B_SRC, BC, C_IMG, CLUSTER, GM, GN, K, M, N, cluster_inst, fp16_image

CAPS = 0x10
CONTROL_WINDOWS = [0x4_0080_0000 + 0x1_0000 * n for n in range(4)]
SCRATCH = (1 << 32) - (1 << 20)


def older_program(m, t, base=0):
    """FP16 operands FILLed with preq = 0, as the older compiler emits."""
    rng = np.random.default_rng(5)
    a = rng.normal(0, 1, (M, K)).astype(np.float16)
    bt = rng.normal(0, 1, (N, K)).astype(np.float16)
    t.write_block(dram(A_SRC), fp16_image(a, GM))
    t.write_block(dram(B_SRC), fp16_image(bt, GN))
    prog = [cluster_inst(1, addr=A_SRC, n=GM * BC, sel=0), cluster_inst(1, addr=B_SRC, n=GN * BC, sel=1),
            cluster_inst(2, gm=GM, gn=GN, nk=BC), cluster_inst(3, addr=C_IMG, n=GM * GN)]
    for s, p in enumerate(prog):
        stage(t, base + s, flit(header((0, 0), (0, 0), T_CU_INST, txn=0x33, last=int(s == 3)), p))
    kick(t, CLUSTER, base, 4, credit=8)


def test_the_older_form_warns_once_naming_read_quant():
    m = kohaku.Machine()
    t = kohaku.SimTransport(m)
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        older_program(m, t)
        wait_count(t, CLUSTER, 4)
        m.idle()
        older_program(m, t, base=4)      # the same mistake again
        wait_count(t, CLUSTER, 8)
        m.idle()
    ours = [w for w in got if issubclass(w.category, kohaku.DiagnosticWarning)]
    assert len(ours) == 1, [str(w.message) for w in got]
    text = str(ours[0].message)
    assert "read_quant=1" in text and "upstream-7703ee8" in text and "mat(1,1)" in text
    assert ours[0].message.name == "older_read_path"
    d = m.diagnostics()
    assert [x["name"] for x in d] == ["older_read_path"] and d[0]["count"] == 2
    assert m.stats()["diagnostics"][0]["count"] == 2


def test_strict_raises_instead():
    m = kohaku.Machine(params={"strict": 1})
    assert m.strict and m.param("strict") == 1
    t = kohaku.SimTransport(m)
    with pytest.raises(kohaku.DiagnosticError) as e:
        older_program(m, t)
        wait_count(t, CLUSTER, 4)
        m.idle()
    assert e.value.name == "older_read_path" and "read_quant" in str(e.value)


def test_the_warnings_filter_applies():
    m = kohaku.Machine()
    t = kohaku.SimTransport(m)
    with warnings.catch_warnings():
        warnings.simplefilter("error", kohaku.DiagnosticWarning)
        with pytest.raises(kohaku.DiagnosticWarning):
            older_program(m, t)
            wait_count(t, CLUSTER, 4)
            m.idle()


def test_read_quant_is_the_cure():
    m = kohaku.Machine(params={"read_quant": 1})
    t = kohaku.SimTransport(m)
    with warnings.catch_warnings():
        warnings.simplefilter("error", kohaku.DiagnosticWarning)
        older_program(m, t)
        wait_count(t, CLUSTER, 4)
        m.idle()
    assert m.diagnostics() == []


def board_less_card(t):
    """What upstream's Card() does first with no board (our own code): find
    the control windows by their CAPS, then write and read back a pattern
    at mesh 0's scratch, 0xfff00000."""
    found = []
    for base in CONTROL_WINDOWS:
        try:
            caps = t.read64(base + CAPS)
        except kohaku.KohakuError:
            continue
        if caps & 0xFFFF == 288 and 0 < (caps >> 16) & 0xFF <= 8:
            found.append(base)
    want = bytes(0x5A ^ i for i in range(64))
    t.write_block(SCRATCH, want)
    return found, t.read_block(SCRATCH, 64) == want


def test_the_profile_answers_card_without_a_board():
    m = kohaku.Machine(profile="upstream-7703ee8")
    assert (m.param("host_map"), m.param("read_quant"), m.param("dispatch_older_rtl")) == (1, 1, 1)
    t = kohaku.SimTransport(m)
    found, clean = board_less_card(t)
    assert found == CONTROL_WINDOWS[:1] and clean
    assert m.dram_read(0, SCRATCH, 64) == bytes(0x5A ^ i for i in range(64))  # mesh 0's DRAM


def test_kohakus_map_refuses_it_naming_the_way_out():
    t = kohaku.SimTransport(kohaku.Machine())
    with pytest.raises(kohaku.KohakuError) as e:
        board_less_card(t)
    assert "Card.from_board(\"multimesh_v67\"" in str(e.value) and "upstream-7703ee8" in str(e.value)

#!/usr/bin/env python3
"""A matmul whose drain feeds a V2 epilogue, end to end from a session.

On data/maps/mesh_1x1_2+2.txt with vec_core_v2=1 (its two vector units are
V2 cores): the cluster at (1,1) computes C = A . Bt (M = N = 16, K = 32,
one tile: FILL, FILL, GEMM, DRAIN of 16 sub-tiles, cluster.md §9.3); the
V2 core at (1,0) fills the 16 drain words, unpacks them with GT4 into rows,
computes silu or a row softmax (docs/vector2.md) and drains the result
row-major. The session is written here from kohaku's own assembler and
quantiser (`kohaku asm`, `kohaku quant`) and run with `kohaku run`; the
values are checked against float64, computed here: C against A . Bt, the
epilogue against the C the machine produced.

Usage: vector2_mesh.py silu|softmax [--write SESSION]; prints one line per
check and exits 1 if one failed.
"""
import math
import os
import random
import struct
import subprocess
import sys
import tempfile

KOHAKU = os.environ.get("KOHAKU", "build/kohaku")
DATA = os.environ.get("KH_DATA", "data")
M = N = 16
K = 32
A_IMG, B_IMG, C_IMG, Y = 0x10000, 0x10400, 0x11000, 0x12000
LOG2E = 1.4426950408889634


def sh(*args, stdin=None):
    p = subprocess.run([KOHAKU, *args], input=stdin, capture_output=True, text=True)
    if p.returncode:
        sys.exit(f"kohaku {' '.join(args[:2])}: exit {p.returncode}: {p.stderr.strip()}")
    return p.stdout


def f16(x):
    return struct.unpack("<H", struct.pack("<e", x))[0]


def from_f16(h):
    return struct.unpack("<e", struct.pack("<H", h))[0]


def e8m15(x):
    """An E8M15 constant: the FP32 bits' top 24, rounded to nearest even."""
    b = struct.unpack("<I", struct.pack("<f", x))[0]
    keep, rest = b >> 8, b & 0xFF
    if rest > 0x80 or (rest == 0x80 and keep & 1):
        keep += 1
    return keep & 0xFFFFFF


def entry_image(rows, mode):
    """One MXFP7 entry (4 lanes x 32 k) through the transform slot's quantiser."""
    v = 0
    for lane, r in enumerate(rows):
        for k, x in enumerate(r):
            v |= f16(x) << (16 * (32 * lane + k))
    out = int(sh("quant", "--mode", str(mode), format(v, "0512x")).split()[-1], 16)
    return out.to_bytes(128, "little")


def v2_program(kind):
    """The epilogue: fill C_img, GT4-unpack rows 0-7 to v0 and 8-15 to v1,
    the op into v2/v3, pack, drain. Returns the assembly text."""
    p = [f"VSETI sreg=0 imm={e8m15(-LOG2E):#x}", "VFILL ad=0", "VBAR"]
    # chunk c of v0 = row c (GT4: word i of four drain words is row i of them)
    p += ["VUNPK reg=0 mode=gt4 n=3 off=0", "VUNPK reg=0 mode=gt4 n=3 cb=4 off=4",
          "VUNPK reg=1 mode=gt4 n=3 off=8", "VUNPK reg=1 mode=gt4 n=3 cb=4 off=12"]
    if kind == "silu":  # y = x / (1 + 2^(-x log2 e))
        for x, t in ((0, 2), (1, 3)):
            p += [f"VMUL vd={t} va={x} sb=s", f"VEXP2 vd={t} va={t}", f"VADD vd={t} va={t} vc=1 sc=k",
                  f"VINV vd={t} va={t}", f"VMUL vd={t} va={x} vb={t}"]
    else:  # row softmax: a row is one chunk, lanes 0-15; the max and sum by xor all-reduce
        p += ["VSETI sreg=1 imm=%#x" % e8m15(LOG2E)]
        for x, t in ((0, 2), (1, 3)):
            p += [f"VMUL vd={t} va={x} sb=s vb=1"]          # t = x log2 e
            p += [f"VMOV vd=4 va={t}"]                      # m = t
            for k in (8, 4, 2, 1):                          # m = max over the row's 16 lanes
                p += [f"VCFG sel=xb payload={1 | k << 3:#x}", "VMAX vd=4 va=4 vb=4 om=1"]
            p += [f"VSUB vd={t} va={t} vc=4", f"VEXP2 vd={t} va={t}", f"VMOV vd=5 va={t}"]
            for k in (8, 4, 2, 1):                          # s = sum over the row
                p += [f"VCFG sel=xb payload={1 | k << 3 | 1 << 10:#x}", "VADD vd=5 va=5 vb=5 vc=5 om=1"]
            p += ["VINV vd=5 va=5", f"VMUL vd={t} va={t} vb=5"]
    p += ["VPACK reg=2 n=7 off=256", "VPACK reg=3 n=7 off=264", "VSYNC waiter=d on=p", "VDRAIN ad=1 start=256",
          "VHALT"]
    return "\n".join(p) + "\n"


def stage_lines(payloads, txn, node):
    out = ["write SIG_DONE 0"]
    for i, pl in enumerate(payloads):
        last = i == len(payloads) - 1
        out.append(f"stage {i} txn={txn if last else 1:#x} last={int(last)} payload={pl}")
    out += ["write PROG_BASE 0", f"write PROG_LEN {len(payloads)}", f"write PROG_DST XY{node}", "write PROG_CRED 4",
            "write PROG_KICK 1",
            f"poll NODE_STATUS{node} {0x0100000000000001 | txn << 24:#018x} mask 0xffffffffff0000ff limit 1000000",
            "idle"]
    return out


def session(kind, A, Bt):
    a_img = b"".join(entry_image(A[4 * e:4 * e + 4], 0) for e in range(4))
    b_img = b"".join(entry_image(Bt[4 * e:4 * e + 4], 1) for e in range(4))
    cl = sh("asm", "--unit", "cluster", stdin=(
        f"FILL addr={A_IMG:#x} n=4 sel=a\nFILL addr={B_IMG:#x} n=4 sel=b\n"
        f"GEMM gm=4 gn=4 nk=1\nDRAIN addr={C_IMG:#x} n=16\n")).split()
    words = sh("asm", "--unit", "vector2", stdin=v2_program(kind)).split()
    outer = [f"IMEM addr={i} word=0x{w}" for i, w in enumerate(words)]
    outer += [f"DESC ad=0 fld=base value={C_IMG:#x}", "DESC ad=0 fld=dim0 value=0x200010",
              f"DESC ad=1 fld=base value={Y:#x}", "DESC ad=1 fld=dim0 value=0x200010", "RUN addr=0"]
    vec = sh("asm", "--unit", "vector", stdin="\n".join(outer) + "\n").split()
    lines = [f"# generated by tests/cli/vector2_mesh.py {kind}: a matmul on (1,1) whose drain feeds a V2 {kind} on (1,0)",
             f"upload DRAM({A_IMG:#x}) hex {a_img.hex()}", f"upload DRAM({B_IMG:#x}) hex {b_img.hex()}"]
    lines += stage_lines(cl, 0x40, "(1,1)") + stage_lines(vec, 0x41, "(1,0)")
    lines += [f"dump DRAM({C_IMG:#x}) 512", f"dump DRAM({Y:#x}) 512"]
    return "\n".join(lines) + "\n"


def dumped(text, base, nbytes):
    mem = {}
    for line in text.splitlines():
        if ":" in line:
            a, h = line.split(":", 1)
            try:
                mem[int(a, 16) & 0xFFFFFFFFF] = bytes.fromhex(h.strip())  # the window base off
            except ValueError:
                pass
    return b"".join(mem[base + 32 * i] for i in range(nbytes // 32))


def main():
    kind = sys.argv[1] if len(sys.argv) > 1 else "silu"
    rng = random.Random(7)
    A = [[rng.randint(-24, 24) / 32 for _ in range(K)] for _ in range(M)]
    Bt = [[rng.randint(-24, 24) / 32 for _ in range(K)] for _ in range(N)]
    text = session(kind, A, Bt)
    if "--write" in sys.argv:
        open(sys.argv[sys.argv.index("--write") + 1], "w").write(text)
    with tempfile.NamedTemporaryFile("w", suffix=".session", delete=False) as f:
        f.write(text)
    try:
        out = sh("run", f"{DATA}/maps/mesh_1x1_2+2.txt", f.name, "--param", "vec_core_v2=1")
    finally:
        os.unlink(f.name)
    cimg, y = dumped(out, C_IMG, 512), dumped(out, Y, 512)
    # C from the drain words: word h of row group g holds C[4g + i][4h + j] at lane 4i + j
    C = [[0.0] * N for _ in range(M)]
    for w in range(16):
        g, h = divmod(w, 4)
        for i in range(4):
            for j in range(4):
                C[4 * g + i][4 * h + j] = from_f16(struct.unpack_from("<H", cimg, 32 * w + 2 * (4 * i + j))[0])
    ref = [[sum(A[i][k] * Bt[j][k] for k in range(K)) for j in range(N)] for i in range(M)]
    peak = max(abs(v) for r in ref for v in r)
    c_err = max(abs(C[i][j] - ref[i][j]) for i in range(M) for j in range(N)) / peak
    if kind == "silu":
        want = [[x / (1 + math.exp(-x)) for x in r] for r in C]
    else:
        want = []
        for r in C:
            e = [math.exp(x - max(r)) for x in r]
            want.append([v / sum(e) for v in e])
    got = [[from_f16(struct.unpack_from("<H", y, 32 * i + 2 * j)[0]) for j in range(N)] for i in range(M)]
    wpeak = max(abs(v) for r in want for v in r)
    y_err = max(abs(got[i][j] - want[i][j]) for i in range(M) for j in range(N)) / wpeak
    ok = c_err < 2 ** -5 and y_err < 2 ** -8
    print(f"matmul: max |C - A.Bt| / max |A.Bt| = {c_err:.2e} (limit 3.1e-02, MXFP7 operands)")
    print(f"{kind}: max |y - f(C)| / max |f(C)| = {y_err:.2e} (limit 3.9e-03)")
    print("ok" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

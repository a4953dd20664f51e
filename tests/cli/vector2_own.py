#!/usr/bin/env python3
"""kohaku's own V2 vector core programs, checked three ways.

Each case is a program for upstream's core-alone harness (`kohaku replay
vector2`, docs/vector2.md §9): CU_INST payloads (prog.hex) and a memory image
(mem.hex), kept in data/vectors/vector2_own/<case>/ with what upstream's RTL
did with them under Verilator (rtl.json, rtl_out_*.hex; recorded with this
script's `record` command, data/vectors/vector2_own/README.md).

    vector2_own.py gen DIR                  write every case's prog/mem/meta
    vector2_own.py record DIR VSIM VSIM_DQ  run the Verilator builds, write rtl.json and rtl_out
    vector2_own.py check DIR [CASE ...]     run kohaku on each; compare with the recording
                                            and with float64 computed here

`check` prints one line per case and variant and exits 1 if any failed:
every counter, the busy and elapsed cycles and the output words must equal
the RTL's; the outputs must also match values computed here in float64 from
the inputs in mem.hex (the program's meaning, docs/vector2.md), within each
check's stated tolerance, or exactly where the operation is exact. A fault
case checks the fault code against docs/vector2.md §8 instead.
"""
import collections
import json
import math
import os
import random
import re
import struct
import subprocess
import sys
import tempfile

KOHAKU = os.environ.get("KOHAKU", "build/kohaku")
WORDS = 4096
LOG2E = 1.4426950408889634
OUT = 2048  # memory word where every case's outputs start (byte 0x10000)


def sh(*args, stdin=None):
    p = subprocess.run([KOHAKU, *args], input=stdin, capture_output=True, text=True)
    if p.returncode:
        sys.exit(f"kohaku {' '.join(args[:3])}: exit {p.returncode}: {p.stderr.strip()}")
    return p.stdout


# ---- number formats (numerics: fp16 and fp32 in memory, E8M15 constants) ----

def f16(x):
    return struct.unpack("<H", struct.pack("<e", x))[0]


def from_f16(h):
    return struct.unpack("<e", struct.pack("<H", h))[0]


def f32(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def from_f32(b):
    return struct.unpack("<f", struct.pack("<I", b))[0]


def e8m15(x):
    """An E8M15 constant for VSETI: the FP32 bits' top 24, rounded to nearest even."""
    b = f32(x)
    keep, rest = b >> 8, b & 0xFF
    if rest > 0x80 or (rest == 0x80 and keep & 1):
        keep += 1
    return keep & 0xFFFFFF


def words_f16(vals):
    """fp16 values, 16 to a 256-bit word (lane l at bits 16l)."""
    out = []
    for i in range(0, len(vals), 16):
        w = 0
        for l, v in enumerate(vals[i:i + 16]):
            w |= f16(v) << (16 * l)
        out.append(w)
    return out


def words_f32(vals):
    out = []
    for i in range(0, len(vals), 8):
        w = 0
        for l, v in enumerate(vals[i:i + 8]):
            w |= f32(v) << (32 * l)
        out.append(w)
    return out


def lanes_f16(w):
    return [from_f16((w >> (16 * l)) & 0xFFFF) for l in range(16)]


def lanes_f32(w):
    return [from_f32((w >> (32 * l)) & 0xFFFFFFFF) for l in range(8)]


def rnd16(rng, lo, hi, n, nonzero=True):
    """n fp16 values uniform in [lo, hi) (rounded to fp16), none zero if asked."""
    out = []
    while len(out) < n:
        v = from_f16(f16(rng.uniform(lo, hi)))
        if v or not nonzero:
            out.append(v)
    return out


# ---- programs ----

def chk(a=(0, 1), b=(0, 1), c=(0, 1), d=(0, 1)):
    """CHK: a nibble {base, stride bit} per operand (docs/vector2.md §3)."""
    return sum(((base << 1) | st) << (4 * i) for i, (base, st) in enumerate((a, b, c, d)))


def xb(mode=0, k=0, sh_=0, xc=0, pm=0, pr=0):
    return mode | k << 3 | sh_ << 7 | xc << 10 | pm << 11 | pr << 13


XM_XOR, XM_ROT, XM_BCAST, XM_MERGE = 1, 2, 3, 4


class Prog:
    """A V2 program as assembly lines, and the harness payloads around it."""

    def __init__(self):
        self.lines, self.descs = [], []

    def __call__(self, *lines):
        self.lines += lines

    def desc(self, ad, base_word, words, stride=32):
        self.descs.append((ad, base_word * 32, stride, words))

    def chkvl(self, vl, c=None):
        self(f"VCFG sel=chkvl payload={(vl - 1) << 16 | (chk() if c is None else c):#x}")

    def xb(self, *a, **kw):
        self(f"VCFG sel=xb payload={xb(*a, **kw):#x}")

    def seti(self, sreg, value, raw=False):
        self(f"VSETI sreg={sreg} imm={value if raw else e8m15(value):#x}")

    def words(self):
        return sh("asm", "--unit", "vector2", stdin="\n".join(self.lines) + "\n").split()

    def payloads(self, runs=None):
        """DESC words, IMEM words, RUN at 0 (upstream's bench order); runs
        replaces the IMEM/RUN part with [(words, start_addr, run_pc, pad), ...]."""
        outer = []
        for ad, base, stride, n in self.descs:
            outer += [f"DESC ad={ad} fld=base value={base:#x}", f"DESC ad={ad} fld=dim0 value={stride << 16 | n:#x}"]
        for words, at, pc, pad in runs or [(self.words(), 0, 0, 0)]:
            outer += ["DESC ad=7 fld=base value=0"] * pad  # harmless payloads: time for the engines to settle
            outer += [f"IMEM addr={at + i} word=0x{w}" for i, w in enumerate(words)]
            outer.append(f"RUN addr={pc}")
        return sh("asm", "--unit", "vector", stdin="\n".join(outer) + "\n").split()


# ---- the cases: build(rng) -> (Prog or payload list, mem words {index: word}, meta);
# ---- ref(mem, out) -> [(what, got, want, rel, abs)], from the inputs alone

def ew_build(rng):
    """Every arithmetic op on two registers of x, y (fp16) and z (fp32)."""
    x = rnd16(rng, -3, 3, 256)
    y = rnd16(rng, -3, 3, 256)
    z = [from_f32(f32(rng.uniform(-2, 2))) for _ in range(256)]
    mem = {}
    for i, w in enumerate(words_f16(x) + words_f16(y) + words_f32(z)):
        mem[64 + i] = w
    p = Prog()
    p.desc(0, 64, 64)  # x, y, z: 64 words to L1 0..63
    p.desc(1, OUT, 16)  # one fp16 result: 16 words (rel, +512 bytes each)
    p.desc(2, OUT + 16 * 17, 32)  # the fp32 result
    p.seti(0, 0.375)
    p.seti(1, 0.5)
    p.seti(2, 0.25)
    p.seti(3, 100, raw=True)  # VL for the partial-beat op
    p("VCFG sel=ainc payload=%#x" % (1 << 20 | 512), "VFILL ad=0 start=0", "VBAR")
    for r in range(2):
        p(f"VUNPK reg={r} n=7 off={8 * r}", f"VUNPK reg={2 + r} n=7 off={16 + 8 * r}",
          f"VUNPK reg={4 + r} mode=f32 n=7 off={32 + 16 * r}")
    res = []  # (result register base, L1 word)

    def two(fmt, dst):
        for r in range(2):
            p(fmt.format(d=dst + r, x=r, y=2 + r, z=4 + r))

    regs = iter(list(range(6, 32, 2)) * 3)

    def result(*fmts):
        d = next(regs)
        for f in fmts:
            two(f, d)
        at = 64 + 16 * len(res)
        res.append(at)
        for r in range(2):
            p(f"VPACK reg={d + r} n=7 off={at + 8 * r}")
        return d

    fma = result("VFMA vd={d} va={x} vb={y} vc={z}")                       # 0 x*y + z
    f32at = 64 + 16 * 17  # the fma result again, as fp32 (32 words)
    for r in range(2):
        p(f"VPACK reg={fma + r} mode=f32 n=7 off={f32at + 16 * r}")
    result("VFNMA vd={d} va={x} vb={y} vc={z}")                            # 1 -(x*y) + z
    result("VMAX vd={d} va={x} vb={y}")                                    # 2
    result("VMIN vd={d} va={x} vb={z}")                                    # 3
    result("VADD vd={d} va={x} vc={z}")                                    # 4 x + z
    result("VSUB vd={d} va={x} vc={z}")                                    # 5 x - z
    result("VNEG vd={d} va={x}")                                           # 6
    result("VABS vd={d} va={y}")                                           # 7
    result("VMUL vd={d} va={x} vb=0 sb=s")                                 # 8 x * 0.375
    result("VMAX vd={d} va={x} vb=0 sb=k", "VSEL vd={d} va={x} vb={y} vc={d}")  # 9 x > 0 ? x : y
    result("VEXP2 vd={d} va={x}")                                          # 10
    result("VABS vd={d} va={y}", "VADD vd={d} va={d} vc=1 sc=k", "VLOG2 vd={d} va={d}")    # 11 log2(|y| + 1)
    result("VABS vd={d} va={x}", "VADD vd={d} va={d} vc=1 sc=s", "VINV vd={d} va={d}")     # 12 1 / (|x| + 0.5)
    result("VABS vd={d} va={y}", "VADD vd={d} va={d} vc=2 sc=s", "VRSQRT vd={d} va={d}")   # 13 (|y| + .25)^-.5
    # 14: x < y ? -x : y, a compare to P0 and a predicated multiply
    d = next(regs)
    two("VMOV vd={d} va={y}", d)
    for r in range(2):  # P0 is one bit a lane of a chunk: compare and use it per register
        p.xb(pm=0, pr=0)
        p(f"VCMPLT vd={d + r} va={r} vb={2 + r} om=1")
        p.xb(pm=1, pr=0)
        p(f"VMUL vd={d + r} va={r} vb=2 sb=k om=1")
    res.append(64 + 16 * len(res))
    for r in range(2):
        p(f"VPACK reg={d + r} n=7 off={res[-1] + 8 * r}")
    result("VEXP2D vd={d} va={x} vb={y}")                                  # 15 2^(x - floor y)
    # 16: VL 100: lanes 0..99 of the pair of registers -x, the rest y
    d = next(regs)
    two("VMOV vd={d} va={y}", d)
    p("VSETVL vsreg=3")
    two("VMUL vd={d} va={x} vb=2 sb=k", d)
    p.chkvl(128)
    res.append(64 + 16 * len(res))
    for r in range(2):
        p(f"VPACK reg={d + r} n=7 off={res[-1] + 8 * r}")
    p("VSYNC waiter=d on=p")
    for at in res:
        p(f"VDRAIN frel=1 ad=1 start={at}")
    p(f"VDRAIN ad=2 start={f32at}", "VHALT")
    return p, mem, {"out": [OUT, 16 * 17 + 32]}


def ew_ref(mem, out):
    x = [v for i in range(16) for v in lanes_f16(mem[64 + i])]
    y = [v for i in range(16) for v in lanes_f16(mem[80 + i])]
    z = [v for i in range(32) for v in lanes_f32(mem[96 + i])]
    n = 256
    want = [
        ("fma", [x[i] * y[i] + z[i] for i in range(n)], 2 ** -10, 2 ** -12),
        ("fnma", [-(x[i] * y[i]) + z[i] for i in range(n)], 2 ** -10, 2 ** -12),
        ("max", [max(x[i], y[i]) for i in range(n)], 0, 0),
        ("min", [min(x[i], z[i]) for i in range(n)], 2 ** -11, 0),
        ("add", [x[i] + z[i] for i in range(n)], 2 ** -10, 2 ** -12),
        ("sub", [x[i] - z[i] for i in range(n)], 2 ** -10, 2 ** -12),
        ("neg", [-v for v in x], 0, 0),
        ("abs", [abs(v) for v in y], 0, 0),
        ("mul S", [v * 0.375 for v in x], 2 ** -10, 0),
        ("sel", [x[i] if x[i] > 0 else y[i] for i in range(n)], 0, 0),
        ("exp2", [2 ** v for v in x], 2 ** -9, 0),
        ("log2", [math.log2(abs(v) + 1) for v in y], 2 ** -9, 2 ** -12),
        ("inv", [1 / (abs(v) + 0.5) for v in x], 2 ** -9, 0),
        ("rsqrt", [(abs(v) + 0.25) ** -0.5 for v in y], 2 ** -9, 0),
        ("cmplt+pm", [-x[i] if x[i] < y[i] else y[i] for i in range(n)], 0, 0),
        ("exp2d", [2 ** (x[i] - math.floor(y[i])) for i in range(n)], 2 ** -9, 0),
        ("vl 100", [-x[i] if i % 128 < 100 else y[i] for i in range(n)], 0, 0),
    ]
    checks = []
    for k, (what, w, rel, ab) in enumerate(want):
        got = [v for i in range(16) for v in lanes_f16(out[OUT + 16 * k + i])]
        checks.append((what, got, w, rel, ab))
    got = [v for i in range(32) for v in lanes_f32(out[OUT + 16 * 17 + i])]
    checks.append(("fma fp32", got, want[0][1], 2 ** -14, 2 ** -16))
    return checks


def ctrl_build(rng):
    """Loops (count 3, count 0), VSKIPZ taken and not, K3, EXP2D's sticky bit
    read back with GETSTK after a front-end VSYNC, rot and bcast crossbars,
    compares to P1/P2 with the other predicate sense, rel unpack and pack
    pointers and a strided unpack walk."""
    x = rnd16(rng, -3, 3, 128)
    y = [x[i] if i % 4 == 0 else v for i, v in enumerate(rnd16(rng, -3, 3, 128))]
    mem = {64 + i: w for i, w in enumerate(words_f16(x) + words_f16(y))}
    p = Prog()
    p.desc(0, 64, 16)
    p.desc(1, OUT, 8)
    p.seti(0, 0.375)
    p.seti(5, 3, raw=True)
    p.seti(6, 0, raw=True)
    p("VCFG sel=ainc payload=%#x" % (1 << 20 | 256), "VFILL ad=0 start=0", "VBAR")
    p("VCFG sel=uptr payload=0", "VCFG sel=uinc payload=8")
    p("VUNPK reg=0 n=7 rel=1", "VUNPK reg=1 n=7 rel=1")          # x, y through UPTR
    p("VMOV vd=2 va=0 sa=k")                                       # v2 = 0
    p("VLOOP vsreg=5 body=1", "VADD vd=2 va=2 vc=0")               # v2 = 3x
    p("VLOOP vsreg=6 body=1", "VADD vd=3 va=0 vc=1 sc=k")          # count 0 runs once: v3 = x + 1
    p("VSKIPZ sreg=6 skip=1", "VMUL vd=3 va=3 vb=2 sb=k")          # taken: v3 stays
    p("VMOV vd=4 va=0")
    p("VSKIPZ sreg=5 skip=1", "VMUL vd=4 va=4 vb=2 sb=k")          # not taken: v4 = -x
    p("VSETI tok=1 imm=%#x" % e8m15(0.25), "VMUL vd=5 va=0 vb=3 sb=k")  # v5 = x / 4
    p.xb(XM_ROT, 3)
    p("VMUL vd=6 va=1 sa=k vb=0 om=1")                             # v6[j] = x[(j + 3) % 16]
    p.chkvl(128, chk(b=(2, 0)))
    p.xb(XM_BCAST, 5, 3)
    p("VMUL vd=7 va=1 sa=k vb=0 om=1")                             # v7 = x[chunk 2][5] everywhere
    p.chkvl(128, chk(b=(0, 0)))
    p.xb(XM_BCAST, 5, 0)
    p("VMUL vd=8 va=1 sa=k vb=0 om=1")                             # v8[chunk i] = x[chunk 0][(5 + i) % 16]
    p.chkvl(128)
    p("VADD vd=9 va=0 vc=0", "VADD vd=9 va=9 vc=9")                # v9 = 4x
    p("VEXP2D vd=9 va=9 vb=0 sb=k")                                # v9 = 2^(4x): sticky at 4x >= 8
    # GETSTK clears the bits one edge after it leaves: the next word still sees them
    p("VSYNC waiter=fe on=m", "VCFG sel=getstk payload=8", "VCFG sel=getstk payload=9")
    p("VMUL vd=10 va=0 vb=9 sb=s", "VCFG sel=getstk payload=10")
    p("VADD vd=11 va=0 vc=10 sc=s")                                # v10 = x * 1.0, v11 = x + 0
    p("VMUL vd=12 va=0 vb=2 sb=k")                                 # v12 = -x
    p.xb(pr=1)
    p("VCMPGT vd=12 va=0 vb=0 sb=k om=1")                          # P1 = x > 0
    p.xb(pm=2, pr=1)
    p("VMUL vd=12 va=0 vb=0 sb=s om=1")                            # where x <= 0: 0.375 x
    p("VMOV vd=13 va=0 sa=k")
    p.xb(pr=2)
    p("VCMPEQ vd=13 va=0 vb=1 om=1")                               # P2 = x == y
    p.xb(pm=1, pr=2)
    p("VADD vd=13 va=1 vc=1 sc=k om=1")                            # where equal: y + 1, else 0
    p("VCFG sel=ustr payload=%#x" % (4 | 1 << 9), "VUNPK reg=14 n=7 off=0")  # word w at (w%4)*4 + w/4
    p("VCFG sel=pptr payload=64", "VCFG sel=pinc payload=8")
    for r in range(2, 15):
        p(f"VPACK reg={r} n=7 rel=1")
    p("VSYNC waiter=d on=p")
    for r in range(2, 15):
        p(f"VDRAIN frel=1 ad=1 start={64 + 8 * (r - 2)}")
    p("VHALT")
    return p, mem, {"out": [OUT, 8 * 13]}


def ctrl_ref(mem, out):
    l1 = [lanes_f16(mem[64 + i]) for i in range(16)]  # x in L1 words 0-7, y in 8-15
    x = [v for w in l1[:8] for v in w]
    y = [v for w in l1[8:] for v in w]
    r = range(128)
    want = [
        ("loop 3", [3 * v for v in x], 2 ** -10, 0),
        ("loop 0 + skipz taken", [v + 1 for v in x], 2 ** -10, 2 ** -12),
        ("skipz not taken", [-v for v in x], 0, 0),
        ("K3", [v / 4 for v in x], 0, 0),
        ("rot 3", [x[16 * (i // 16) + (i + 3) % 16] for i in r], 0, 0),
        ("bcast fixed", [x[2 * 16 + 5]] * 128, 0, 0),
        ("bcast walk", [x[(5 + i // 16) % 16] for i in r], 0, 0),
        ("exp2d 2^4x", [2 ** (4 * v) for v in x], 2 ** -9, 0),
        ("getstk set, then at once again", x, 0, 0),
        ("getstk cleared", x, 0, 0),
        ("cmpgt pm=2", [-v if v > 0 else 0.375 * v for v in x], 2 ** -10, 0),
        ("cmpeq pm=1", [y[i] + 1 if x[i] == y[i] else 0 for i in r], 2 ** -10, 0),
        ("ustr 4,1", [l1[(i // 16) % 4 * 4 + i // 64][i % 16] for i in r], 0, 0),
    ]
    return [(w, [v for i in range(8) for v in lanes_f16(out[OUT + 8 * k + i])], v, rel, ab)
            for k, (w, v, rel, ab) in enumerate(want)]


def rowsum_levels(p, op, rows, temps, g, gm, dst, dchunk):
    """Each of 16 rows (a register each) to 16 partials (VL 64, 32, 16), into
    g[r // 8] chunk r % 8, then four merge steps: dst chunk dchunk, lane r =
    row r (docs/vector2.md §3, merge)."""
    xc = 1 if op == "VADD" else 0

    def comb(vd, ra, ba, rb, bb, db, vl):
        p.chkvl(vl, chk(a=(ba, 1), b=(bb, 1), c=(bb, 1), d=(db, 1)))
        if op == "VADD":
            p(f"VADD vd={vd} va={ra} vc={rb} om=1")
        else:
            p(f"{op} vd={vd} va={ra} vb={rb} om=1")

    p.xb()  # om applies the crossbar too: none for the chunk steps

    for r, reg in enumerate(rows):
        comb(temps[r // 2], reg, 0, reg, 4, 4 * (r % 2), 64)
    for r in range(16):
        t, tb = temps[r // 2], 4 * (r % 2)
        comb(t, t, tb, t, tb + 2, tb, 32)
    for r in range(16):
        t, tb = temps[r // 2], 4 * (r % 2)
        comb(g[r // 8], t, tb, t, tb + 1, r % 8, 16)
    # merge: k 8 (a = g0, b = g1), then halves of gm
    p.chkvl(128)
    p.xb(XM_MERGE, 8, 0, xc)
    p(f"{op} vd={gm} va={g[0]} vb={g[1]} vc={g[1]} om=1")
    for k, vl, hb, d, dc in ((4, 64, 4, gm, 0), (2, 32, 2, gm, 0), (1, 16, 1, dst, dchunk)):
        p.chkvl(vl, chk(a=(0, 1), b=(hb, 1), c=(hb, 1), d=(dc, 1)))
        p.xb(XM_MERGE, k, 0, xc)
        p(f"{op} vd={d} va={gm} vb={gm} vc={gm} om=1")


def rowred_build(rng):
    """Row sums and maxes of 16 rows of 128 through the merge network, the
    mean, and each row less its mean by a bcast crossbar."""
    x = rnd16(rng, -4, 4, 16 * 128)
    mem = {64 + i: w for i, w in enumerate(words_f16(x))}
    p = Prog()
    p.desc(0, 64, 128)
    p.desc(1, OUT, 128)
    p.desc(2, OUT + 128, 3)
    p.seti(0, 1 / 128)
    p("VFILL ad=0 start=0", "VBAR")
    for r in range(16):
        p(f"VUNPK reg={r} n=7 off={8 * r}")
    rows, temps, g = list(range(16)), list(range(16, 24)), [24, 25]
    rowsum_levels(p, "VADD", rows, temps, g, 26, 27, 0)
    rowsum_levels(p, "VMAX", rows, temps, g, 26, 27, 1)
    p.chkvl(16, chk(d=(2, 1)))
    p.xb()
    p("VMUL vd=27 va=27 vb=0 sb=s om=1")                           # chunk 2 = chunk 0 / 128
    for r in range(16):
        p.chkvl(128, chk(b=(2, 0)))
        p.xb(XM_BCAST, r, 3, 1)
        p(f"VSUB vd={r} va={r} vb=27 vc=27 om=1")                  # row - its mean (lane r of chunk 2)
    p.chkvl(128)
    for r in range(16):
        p(f"VPACK reg={r} n=7 off={256 + 8 * r}")
    p("VPACK reg=27 n=2 off=384", "VSYNC waiter=d on=p", "VDRAIN ad=1 start=256", "VDRAIN ad=2 start=384", "VHALT")
    return p, mem, {"out": [OUT, 131]}


def rowred_ref(mem, out):
    x = [[v for i in range(8) for v in lanes_f16(mem[64 + 8 * r + i])] for r in range(16)]
    sums = [sum(r) for r in x]
    got = [v for i in range(3) for v in lanes_f16(out[OUT + 128 + i])]
    cen = [v for i in range(128) for v in lanes_f16(out[OUT + i])]
    return [
        ("row sums", got[:16], sums, 2 ** -10, 2 ** -6),
        ("row maxes", got[16:32], [max(r) for r in x], 0, 0),
        ("row means", got[32:48], [s / 128 for s in sums], 2 ** -10, 2 ** -12),
        ("row - mean", cen, [v - sums[r] / 128 for r in range(16) for v in x[r]], 2 ** -10, 2 ** -9),
    ]


def softmax_build(rng):
    """Row softmax of 32 rows of 128, two tiles of 16 rows in a VLOOP with rel
    fills and drains: the max through merge, EXP2D against the max's floor,
    the sum through merge, VINV and a bcast multiply."""
    x = rnd16(rng, -6, 6, 32 * 128)
    mem = {64 + i: w for i, w in enumerate(words_f16(x))}
    p = Prog()
    p.desc(0, 64, 128)
    p.desc(1, OUT, 128)
    p.seti(0, LOG2E)
    p.seti(5, 2, raw=True)
    p("VCFG sel=ainc payload=%#x" % (0 << 20 | 4096), "VCFG sel=ainc payload=%#x" % (1 << 20 | 4096))
    p("VFILL frel=1 ad=0 start=0")
    body = Prog()
    body("VBAR")
    for r in range(16):
        body(f"VUNPK reg={r} n=7 off={8 * r}")
    body("VSYNC waiter=a on=u", "VFILL frel=1 ad=0 start=0", "VSYNC waiter=p on=d")
    rows, temps, g = list(range(16)), list(range(16, 24)), [24, 25]
    body.chkvl(128)
    for r in rows:
        body(f"VMUL vd={r} va={r} vb=0 sb=s")                       # t = x log2 e
    rowsum_levels(body, "VMAX", rows, temps, g, 26, 27, 0)
    for r in rows:
        body.chkvl(128, chk(b=(0, 0)))
        body.xb(XM_BCAST, r, 3)
        body(f"VEXP2D vd={r} va={r} vb=27 om=1")                    # 2^(t - floor(max t))
    rowsum_levels(body, "VADD", rows, temps, g, 26, 27, 1)
    body.chkvl(16, chk(a=(1, 1), d=(2, 1)))
    body.xb()
    body("VINV vd=27 va=27 om=1")
    for r in rows:
        body.chkvl(128, chk(b=(2, 0)))
        body.xb(XM_BCAST, r, 3)
        body(f"VMUL vd={r} va={r} vb=27 om=1")
    body.chkvl(128)
    for r in rows:
        body(f"VPACK reg={r} n=7 off={256 + 8 * r}")
    body("VSYNC waiter=d on=p", "VDRAIN frel=1 ad=1 start=256")
    words = body.words()
    p(f"VLOOP vsreg=5 body={len(words)}")
    p.lines += body.lines
    p("VHALT")
    return p, mem, {"out": [OUT, 256]}


def softmax_ref(mem, out):
    checks = []
    got, want = [], []
    for r in range(32):
        x = [v for i in range(8) for v in lanes_f16(mem[64 + 8 * r + i])]
        m = max(x)
        e = [math.exp(v - m) for v in x]
        want += [v / sum(e) for v in e]
        got += [v for i in range(8) for v in lanes_f16(out[OUT + 8 * r + i])]
    checks.append(("softmax", got, want, 2 ** -8, 2 ** -14))
    return checks


def gt4_build(rng):
    """A 16 x 32 matmul result in the cluster's drain layout (word 8g + h:
    lane 4i + j = C[4g + i][4h + j]) unpacked with GT4 into rows, packed
    row-major by a strided pack walk, packed back with GT4, through fp32
    both ways, and the first group as one MXFP7 entry."""
    C = [rnd16(rng, -8, 8, 32) for _ in range(16)]
    drain = []
    for g in range(4):
        for h in range(8):
            drain.append([C[4 * g + i][4 * h + j] for i in range(4) for j in range(4)])
    mem = {64 + i: w for i, w in enumerate(words_f16([v for w in drain for v in w]))}
    c32 = [from_f32(f32(rng.uniform(-8, 8))) for _ in range(128)]
    mem.update({96 + i: w for i, w in enumerate(words_f32(c32))})
    p = Prog()
    p.desc(0, 64, 48)
    p.desc(1, OUT, 32)                # row-major C
    p.desc(2, OUT + 32, 32)           # GT4 packed back: the drain layout again
    p.desc(3, OUT + 64, 16)           # fp32 through fp16 E8 registers back to fp32
    p.desc(4, OUT + 80, 16)
    p.desc(5, OUT + 96, 4)            # MXFP7 (the RTL is the only reference)
    p.desc(6, OUT + 100, 16)          # GT4 n=3 at chunk 4, plain pack
    p("VFILL ad=0 start=0", "VBAR")
    for g in range(4):
        p(f"VUNPK reg={g} mode=gt4 n=7 off={8 * g}")
    p("VUNPK reg=4 mode=f32 n=7 off=32")
    p("VUNPK reg=5 mode=gt4 n=3 cb=4 off=4")    # words 4-7 of group 0 to chunks 4-7: rows 0-3, cols 16-31
    p("VUNPK reg=5 mode=gt4 n=3 off=0")         # words 0-3: rows 0-3, cols 0-15
    p("VCFG sel=pstr payload=%#x" % (2 | 1 << 9))
    for g in range(4):
        p(f"VPACK reg={g} n=7 off={256 + 8 * g}")   # chunk w: row 4g + w % 4, half w / 4 -> 8g + 2(w%4) + w/4
    p("VCFG sel=pstr payload=%#x" % (1 | 4 << 9))
    for g in range(4):
        p(f"VPACK reg={g} mode=gt4 n=7 off={288 + 8 * g}")
    p("VPACK reg=4 mode=f32 n=7 off=320")
    p("VPACK reg=4 n=7 off=336", "VSYNC waiter=u on=p", "VUNPK reg=6 n=7 off=336")  # fp32 -> fp16 -> E8 -> fp32
    p("VPACK reg=6 mode=f32 n=7 off=344")
    p("VPACK reg=0 mode=mx7 n=7 off=360")
    p("VPACK reg=5 n=7 off=364")
    p("VSYNC waiter=d on=p")
    p("VDRAIN ad=1 start=256", "VDRAIN ad=2 start=288", "VDRAIN ad=3 start=320", "VDRAIN ad=4 start=344")
    p("VDRAIN ad=5 start=360", "VDRAIN ad=6 start=364", "VHALT")
    return p, mem, {"out": [OUT, 116]}


def gt4_ref(mem, out):
    dr = [lanes_f16(mem[64 + i]) for i in range(32)]
    C = [[dr[8 * (r // 4) + c // 4][4 * (r % 4) + c % 4] for c in range(32)] for r in range(16)]
    c32 = [v for i in range(16) for v in lanes_f32(mem[96 + i])]
    rows = [v for i in range(32) for v in lanes_f16(out[OUT + i])]
    back = [v for i in range(32) for v in lanes_f16(out[OUT + 32 + i])]
    o32 = [v for i in range(16) for v in lanes_f32(out[OUT + 64 + i])]
    o16 = [v for i in range(16) for v in lanes_f32(out[OUT + 80 + i])]
    g0 = [v for i in range(8) for v in lanes_f16(out[OUT + 100 + i])]
    return [
        ("gt4 rows", rows, [v for r in C for v in r], 0, 0),
        ("gt4 pack back", back, [v for w in dr for v in w], 0, 0),
        ("fp32 round trip", o32, [from_f32(e8m15(v) << 8) for v in c32], 0, 0),  # E8M15 keeps 15 bits
        ("fp32 through fp16", o16, [from_f16(f16(from_f32(e8m15(v) << 8))) for v in c32], 0, 0),  # two roundings
        ("gt4 n=3 cb=4", g0, [C[r][c] for h in (0, 16) for r in range(4) for c in range(h, h + 16)], 0, 0),
    ]


def stream_build(rng):
    """y = 0.75 x + 1 over 16 tiles of one register, double-buffered: tile
    2k in L1 buffer A, 2k + 1 in B, each fill, unpack, pack and drain
    ordered by VSYNC marks alone (no whole-kind waits)."""
    n = 16
    x = rnd16(rng, -4, 4, 128 * n)
    mem = {64 + i: w for i, w in enumerate(words_f16(x))}
    p = Prog()
    p.desc(0, 64, 8)
    p.desc(1, OUT, 8)
    p.seti(0, 0.75)
    p.seti(5, n // 2, raw=True)
    p("VCFG sel=ainc payload=%#x" % (0 << 20 | 256), "VCFG sel=ainc payload=%#x" % (1 << 20 | 256))
    p("VFILL frel=1 ad=0 start=0", "VSYNC waiter=mk on=f mark=0")
    b = Prog()
    # A: marks 0 fill, 2 unpacked, 4 packed, 6 drained; B: 1, 3, 5, 7
    b("VSYNC waiter=a mk=1 mark=3", "VFILL frel=1 ad=0 start=8", "VSYNC waiter=mk on=f mark=1")
    b("VSYNC waiter=u mk=1 mark=0", "VUNPK reg=0 n=7 off=0", "VSYNC waiter=mk on=u mark=2")
    b("VFMA vd=1 va=0 vb=0 sb=s vc=1 sc=k")
    b("VSYNC waiter=p mk=1 mark=6", "VPACK reg=1 n=7 off=256", "VSYNC waiter=mk on=p mark=4")
    b("VSYNC waiter=d mk=1 mark=4", "VDRAIN frel=1 ad=1 start=256", "VSYNC waiter=mk on=d mark=6")
    b("VSYNC waiter=a mk=1 mark=2", "VFILL frel=1 ad=0 start=0", "VSYNC waiter=mk on=f mark=0")
    b("VSYNC waiter=u mk=1 mark=1", "VUNPK reg=2 n=7 off=8", "VSYNC waiter=mk on=u mark=3")
    b("VFMA vd=3 va=2 vb=0 sb=s vc=1 sc=k")
    b("VSYNC waiter=p mk=1 mark=7", "VPACK reg=3 n=7 off=264", "VSYNC waiter=mk on=p mark=5")
    b("VSYNC waiter=d mk=1 mark=5", "VDRAIN frel=1 ad=1 start=264", "VSYNC waiter=mk on=d mark=7")
    p(f"VLOOP vsreg=5 body={len(b.words())}")
    p.lines += b.lines
    p("VHALT")
    return p, mem, {"out": [OUT, 8 * n]}


def stream_ref(mem, out):
    n = 16
    x = [v for i in range(8 * n) for v in lanes_f16(mem[64 + i])]
    got = [v for i in range(8 * n) for v in lanes_f16(out[OUT + i])]
    return [("0.75 x + 1", got, [0.75 * v + 1 for v in x], 2 ** -10, 2 ** -12)]


def dualq_build(rng):
    """Two streams on the two unpack and pack queues: queue 0 waits for a
    slow fill (B, 64 words, behind A's) then scales four registers; queue 1
    meanwhile turns eight tiles of A from the cluster's drain layout into
    rows (GT4 unpack, plain pack) through one register. With DUALQ the
    A stream runs under B's fill; without it, behind it in queue 0."""
    a = rnd16(rng, -4, 4, 64 * 16)
    b = rnd16(rng, -4, 4, 64 * 16)
    mem = {64 + i: w for i, w in enumerate(words_f16(a) + words_f16(b))}
    p = Prog()
    p.desc(0, 64, 64)
    p.desc(1, 128, 64)
    p.desc(2, OUT, 64)
    p.desc(3, OUT + 64, 32)
    p.seti(0, 0.5)
    p.seti(5, 8, raw=True)
    p("VFILL ad=0 start=0", "VSYNC waiter=mk on=f mark=0", "VFILL ad=1 start=256", "VSYNC waiter=mk on=f mark=1")
    p("VSYNC waiter=u mk=1 mark=1")
    for i in range(4):
        p(f"VUNPK reg={16 + i} n=7 off={256 + 8 * i}")
    for i in range(4):
        p(f"VMUL vd={20 + i} va={16 + i} vb=0 sb=s")
    for i in range(4):
        p(f"VPACK reg={20 + i} n=7 off={384 + 8 * i}")
    p("VCFG sel=uptr payload=0", "VCFG sel=uinc payload=8", "VCFG sel=pptr payload=128", "VCFG sel=pinc payload=8")
    p("VSYNC waiter=u sq=1 mk=1 mark=0")
    p("VLOOP vsreg=5 body=2", "VUNPK reg=0 mode=gt4 n=7 rel=1 q=1", "VPACK reg=0 n=7 rel=1 q=1")
    p("VSYNC waiter=d on=p1", "VDRAIN ad=2 start=128", "VSYNC waiter=d on=p", "VDRAIN ad=3 start=384", "VHALT")
    return p, mem, {"out": [OUT, 96]}


def dualq_ref(mem, out):
    got = [v for i in range(96) for v in lanes_f16(out[OUT + i])]
    want = []
    for t in range(8):  # GT4 over 8 words: out word i (0-3) = granule i of words 0-3, 4-7 of words 4-7
        w = [lanes_f16(mem[64 + 8 * t + k]) for k in range(8)]
        for i in range(8):
            h = 4 * (i // 4)
            want += [w[h + k][4 * (i % 4) + j] for k in range(4) for j in range(4)]
    want += [0.5 * v for i in range(32) for v in lanes_f16(mem[128 + i])]
    return [("gt4 rows on queue 1, 0.5 x on queue 0", got, want, 0, 0)]


def fault_build(kind):
    """Some work (fill, unpack, math, pack, drain), then one faulting word,
    then work that must not start. f_restart faults only after its drain
    is done, then reloads the faulting word as VHALT and runs again: the
    frame takes a RUN after a fault."""
    def build(rng):
        x = rnd16(rng, -2, 2, 128)
        mem = {64 + i: w for i, w in enumerate(words_f16(x))}
        p = Prog()
        p.desc(0, 64, 300 if kind == "f_len" else 8)
        p.desc(1, OUT, 8)
        p.desc(2, OUT + 8, 8)
        p.seti(2, 0 if kind == "f_vl" else 129, raw=True)
        p.seti(5, 2, raw=True)
        p("VFILL ad=0 start=0", "VBAR", "VUNPK reg=0 n=7 off=0", "VMUL vd=1 va=0 vb=2 sb=k",
          "VPACK reg=1 n=7 off=256", "VSYNC waiter=d on=p", "VDRAIN ad=1 start=256")
        bad = {
            "f_opcode": ["OP op=25"],
            "f_restart": ["OP op=25"],
            "f_len": [],
            "f_loop": ["VLOOP vsreg=5 body=2", "VLOOP vsreg=5 body=1", "VMOV vd=3 va=0"],
            "f_vl": ["VSETVL vsreg=2"],
            "f_vl129": ["VSETVL vsreg=2"],
            "f_gt4": ["VUNPK reg=4 mode=gt4 n=1 off=0"],
            "f_src": ["VADD vd=4 va=0 vc=0 sa=2"],
            "f_mode": ["VUNPK reg=4 mode=mx7 n=7 off=0"],
            "f_mode_mx7": ["VPACK reg=1 mode=mx7 n=3 off=300"],
            "f_sync": ["VSYNC waiter=7 on=f"],
            "f_sync_on": ["VSYNC waiter=fe on=7"],
        }[kind]
        if kind == "f_restart":
            p("VSYNC waiter=fe on=d")  # the first RUN's drain is done before it faults
        p(*bad)
        p("VMUL vd=2 va=0 vb=0 sb=k", "VPACK reg=2 n=7 off=264", "VSYNC waiter=d on=p", "VDRAIN ad=2 start=264",
          "VHALT")
        meta = {"out": [OUT, 16], "fault": {"f_opcode": 4, "f_restart": 4, "f_len": 5, "f_loop": 6, "f_vl": 7, "f_vl129": 7,
                                            "f_gt4": 10, "f_src": 11, "f_mode": 12, "f_mode_mx7": 12,
                                            "f_sync": 13, "f_sync_on": 13}[kind]}
        if kind == "f_restart":
            w = p.words()
            at = [x.lower() for x in w].index("c8000000")
            halt = sh("asm", "--unit", "vector2", stdin="VHALT\n").split()
            return p.payloads(runs=[(w, 0, 0, 0), (halt, at, 0, 0)]), mem, meta
        return p, mem, meta
    return build


def fault_ref(kind):
    def ref(mem, out):
        x = [v for i in range(8) for v in lanes_f16(mem[64 + i])]
        got = [v for i in range(8) for v in lanes_f16(out[OUT + i])]
        if kind == "f_len":  # the fill itself faults: nothing reaches L1, the drain (if any) writes zeros
            return [("nothing filled", got, [0.0] * 128, 0, 0)]
        checks = [("work before the fault (-x)", got, [-v for v in x], 0, 0)]
        got2 = [v for i in range(8) for v in lanes_f16(out[OUT + 8 + i])]
        if kind == "f_restart":  # the second RUN halts at the reloaded word: the rest never ran
            checks.append(("work after the fault never ran", got2, [0.0] * 128, 0, 0))
        return checks
    return ref


CASES = {
    "ew": (ew_build, ew_ref, 1),
    "ctrl": (ctrl_build, ctrl_ref, 2),
    "rowred": (rowred_build, rowred_ref, 3),
    "softmax": (softmax_build, softmax_ref, 4),
    "gt4": (gt4_build, gt4_ref, 5),
    "stream": (stream_build, stream_ref, 6),
    "dualq": (dualq_build, dualq_ref, 7),
}
for _i, _k in enumerate(("f_opcode", "f_restart", "f_len", "f_loop", "f_vl", "f_vl129", "f_gt4", "f_src", "f_mode",
                         "f_mode_mx7", "f_sync", "f_sync_on")):
    CASES[_k] = (fault_build(_k), fault_ref(_k), 20 + _i)
    CASES[_k][0].__doc__ = fault_build.__doc__
# the parameter sets each case runs under: (name, kohaku --param list, Verilator build)
VARIANTS = {"dualq": [("", [], "vsim"), ("DUALQ=1", ["DUALQ=1"], "vsim_dq")]}
DEFAULT_VARIANTS = [("", [], "vsim")]


def gen(root):
    for name, (build, _, seed) in CASES.items():
        d = os.path.join(root, name)
        os.makedirs(d, exist_ok=True)
        prog, mem, meta = build(random.Random(seed))
        lines = prog if isinstance(prog, list) else prog.payloads()
        with open(os.path.join(d, "prog.hex"), "w") as f:
            f.write("\n".join(lines) + "\n")
        with open(os.path.join(d, "mem.hex"), "w") as f:
            f.write("".join(format(mem.get(i, 0), "064x") + "\n" for i in range(WORDS)))
        meta = {"case": name, "doc": build.__doc__ or CASES[name][0].__doc__, **meta,
                "variants": [v[0] for v in VARIANTS.get(name, DEFAULT_VARIANTS)]}
        if not isinstance(prog, list):
            meta["program"] = prog.lines
        with open(os.path.join(d, "meta.json"), "w") as f:
            json.dump(meta, f, indent=1)
            f.write("\n")
        print(name, len(lines), "payloads")


def read_mem(path):
    """A hex file as {word: value} (@ lines set the address); absent words read 0."""
    out, at = collections.defaultdict(int), 0
    for line in open(path):
        line = line.strip()
        if not line:
            continue
        if line.startswith("@"):
            at = int(line[1:], 16)
            continue
        out[at] = int(line, 16)
        at += 1
    return out


ENGINE_RE = re.compile(r"^(V2\w+)(?: TOP\S*)? (.*)$")


def parse_kohaku(text):
    rec, eng = {}, {}
    for line in text.splitlines():
        m = ENGINE_RE.match(line)
        if m:
            kv = m.group(2).split()
            eng[m.group(1)] = {k: int(v) for k, v in zip(kv[::2], kv[1::2])}
        elif line.startswith("payloads"):
            kv = line.split()
            rec = {k: (v if k == "fault_arg" else int(v)) for k, v in zip(kv[::2], kv[1::2])}
    rec["engines"] = eng
    return rec


def parse_vsim(text):
    rec, eng = {}, {}
    for line in text.splitlines():
        m = re.search(r"REPLAY payloads (\d+) completions (\d+) faults (\d+) fault_arg (\S+)", line)
        if m:
            rec.update(payloads=int(m[1]), completions=int(m[2]), faults=int(m[3]), fault_arg=m[4])
        m = re.search(r"ELAPSED (\d+)", line)
        if m:
            rec["elapsed"] = int(m[1])
        if line.startswith("VRES"):
            kv = line.split()[2:]
            d = dict(zip(kv[::2], kv[1::2]))
            rec.update({k: int(d[k]) for k in ("busy", "beats", "lanes", "insns")})
        m = ENGINE_RE.match(line)
        if m:
            kv = m.group(2).split()
            eng[m.group(1)] = {k: int(v) for k, v in zip(kv[::2], kv[1::2])}
    rec["engines"] = eng
    return rec


def key(var, mw):
    return f"{var + '/' if var else ''}memwait{mw}"


def outname(var, mw):
    return f"rtl_out_{var.replace('=', '') + '_' if var else ''}m{mw}.hex"


def record(root, vsim, vsim_dq):
    bins = {"vsim": vsim, "vsim_dq": vsim_dq}
    for name in CASES:
        d = os.path.abspath(os.path.join(root, name))
        meta = json.load(open(os.path.join(d, "meta.json")))
        lo, n = meta["out"]
        rj = {}
        for var, _, b in VARIANTS.get(name, DEFAULT_VARIANTS):
            for mw in (0, 1):
                with tempfile.TemporaryDirectory() as t:
                    r = subprocess.run([bins[b], f"+prog={d}/prog.hex", f"+mem={d}/mem.hex", f"+out={t}/o.hex",
                                        f"+memwait={mw}"], capture_output=True, text=True, cwd=os.path.dirname(bins[b]))
                    rec = parse_vsim(r.stdout)
                    if "elapsed" not in rec:
                        sys.exit(f"{name} {var} memwait {mw}: {r.stdout[-400:]}")
                    mem = read_mem(f"{t}/o.hex")
                rj[key(var, mw)] = rec
                with open(os.path.join(d, outname(var, mw)), "w") as f:
                    f.write(f"@{lo:x}\n" + "".join(format(mem.get(lo + i, 0), "064x") + "\n" for i in range(n)))
                print(name, var or "-", mw, "busy", rec.get("busy"), "elapsed", rec["elapsed"], "faults",
                      rec["faults"], rec["fault_arg"])
        rj["rtl"] = ("upstream KohakuTPU 54cc4015 vec2_replay closure as data/vectors/vector2 (noc_cu_base@1a77e97), "
                     "Verilator 5.006 (Debian); DUALQ=1 built with -DV2_DUALQ")
        with open(os.path.join(d, "rtl.json"), "w") as f:
            json.dump(rj, f, indent=1)
            f.write("\n")


def close(got, want, rel, ab):
    if math.isnan(want):
        return math.isnan(got)
    return abs(got - want) <= rel * abs(want) + ab


def check(root, names):
    ok = True
    for name in names or CASES:
        d = os.path.join(root, name)
        meta = json.load(open(os.path.join(d, "meta.json")))
        rj = json.load(open(os.path.join(d, "rtl.json")))
        lo, n = meta["out"]
        inputs = read_mem(os.path.join(d, "mem.hex"))
        for var, params, _ in VARIANTS.get(name, DEFAULT_VARIANTS):
            for mw in (0, 1):
                bad = []
                with tempfile.TemporaryDirectory() as t:
                    args = ["replay", "vector2", f"{d}/prog.hex", f"{d}/mem.hex", "--memwait", str(mw),
                            "--out", f"{t}/o.hex"]
                    for prm in params:
                        args += ["--param", prm]
                    r = subprocess.run([KOHAKU, *args], capture_output=True, text=True)
                    got = parse_kohaku(r.stdout)
                    mem = read_mem(f"{t}/o.hex") if os.path.exists(f"{t}/o.hex") else collections.defaultdict(int)
                    if r.returncode not in (0, 1) or not mem:
                        bad.append(f"kohaku exit {r.returncode}: {r.stderr.strip()[-300:]}")
                want = rj[key(var, mw)]
                for k in ("payloads", "completions", "faults", "fault_arg", "elapsed", "busy", "beats", "lanes",
                          "insns"):
                    if str(got.get(k)) != str(want[k]):
                        bad.append(f"{k} {got.get(k)} (RTL {want[k]})")
                for e, kv in want["engines"].items():
                    for k, v in kv.items():
                        if got["engines"].get(e, {}).get(k) != v:
                            bad.append(f"{e} {k} {got['engines'].get(e, {}).get(k)} (RTL {v})")
                rtl = read_mem(os.path.join(d, outname(var, mw)))
                diff = [i for i in range(lo, lo + n) if mem.get(i, 0) != rtl.get(i, 0)]
                if diff:
                    bad.append(f"{len(diff)} output words differ from the RTL's, first at word {diff[0]:#x}")
                if "fault" in meta:
                    if want["faults"] != 1 or int(want["fault_arg"], 16) != meta["fault"]:
                        bad.append(f"RTL fault {want['faults']} {want['fault_arg']} is not code {meta['fault']}")
                    if got.get("faults") != 1 or int(str(got.get("fault_arg")), 16) != meta["fault"]:
                        bad.append(f"fault {got.get('faults')} {got.get('fault_arg')} is not code {meta['fault']}")
                for what, g, w, rel, ab in CASES[name][1](inputs, mem):
                    nbad = [i for i in range(len(w)) if not close(g[i], w[i], rel, ab)]
                    if nbad:
                        i = nbad[0]
                        bad.append(f"{what}: {len(nbad)} values off, first [{i}] {g[i]!r} want {w[i]!r}")
                tag = f"{name}{' ' + var if var else ''} memwait {mw}"
                print(f"{tag}: {'ok' if not bad else 'FAILED'} (busy {got.get('busy')}, elapsed {got.get('elapsed')})")
                for b in bad[:8]:
                    print("   ", b)
                ok &= not bad
    return ok


def check_rtl_values(root, names):
    """The float64 checks against the RTL's own outputs (a check of the checks)."""
    ok = True
    for name in names or CASES:
        d = os.path.join(root, name)
        meta = json.load(open(os.path.join(d, "meta.json")))
        inputs = read_mem(os.path.join(d, "mem.hex"))
        for var, _, _ in VARIANTS.get(name, DEFAULT_VARIANTS):
            for mw in (0, 1):
                rtl = read_mem(os.path.join(d, outname(var, mw)))
                for what, g, w, rel, ab in CASES[name][1](inputs, rtl):
                    errs = [abs(g[i] - w[i]) / (abs(w[i]) + 1e-30) for i in range(len(w)) if w[i]]
                    nbad = [i for i in range(len(w)) if not close(g[i], w[i], rel, ab)]
                    print(f"{name} {var} m{mw} {what}: max rel {max(errs or [0]):.2e} bad {len(nbad)}"
                          + (f" first [{nbad[0]}] {g[nbad[0]]} want {w[nbad[0]]}" if nbad else ""))
                    ok &= not nbad
    return ok


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("gen", "record", "check", "rtlvalues"):
        sys.exit(__doc__)
    cmd, root = sys.argv[1], sys.argv[2]
    if cmd == "gen":
        gen(root)
    elif cmd == "record":
        record(root, sys.argv[3], sys.argv[4])
    elif cmd == "rtlvalues":
        return 0 if check_rtl_values(root, sys.argv[3:]) else 1
    else:
        return 0 if check(root, sys.argv[3:]) else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

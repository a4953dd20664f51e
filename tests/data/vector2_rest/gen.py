#!/usr/bin/env python3
"""The random V2 programs of tests/cli/vector2_rest.sh (tests/data/README.md).

    gen.py DIR    write DIR/in.hex and DIR/<case>/prog.hex (and mesh.session
                  for the mesh cases); run from the project root (it uses
                  tests/cli/vector2_own.py's assembler helpers and build/kohaku)

A case sN is seed N (sNq: with queue 1 and DUALQ): 8-40 random instructions
among fills, unpacks and packs of every format (MX7 and GT4 with 8 chunks),
math of a random VL and chunk walk, crossbar and predicate settings,
drains, whole-kind VSYNCs, VSYNC marks set and waited on by every waiter
(at the fill and drain queues' heads too) and, on one seed in four, maybe
a faulting word; then the last pack is drained and the core halts. A
case rerunN faults with work queued, and a second RUN N payloads later
packs what that work left in the registers. The
engines rest for runs of every length between them. expect.txt is the
printout `figures` (the test) makes, recorded from main 3795c51's build
(before the rest skips) and equal to the reference engine's.
"""
import os
import random
import sys

sys.path.insert(0, "tests/cli")
from vector2_own import OUT, Prog, chk, rnd16, words_f16  # noqa: E402

CASES = ["s146q", "s89q", "s234", "s187", "s64", "s102", "s4", "s192", "rerun0", "rerun5", "rerun20"]
MESH = ["s234", "s146q", "s102"]
MEM_SEED = 234  # in.hex: that seed's inputs, words 64..319


def build(seed, dq):
    rng = random.Random(seed)
    p = Prog()
    x = rnd16(rng, -2, 2, 16 * 64)
    mem = {64 + i: w for i, w in enumerate(words_f16(x))}
    p.desc(0, 64, 8)
    p.desc(1, OUT, 8)
    p.desc(2, 64 + 8, 16)
    p.desc(3, OUT + 8, 16)
    p.seti(0, 0.75); p.seti(1, 0.5); p.seti(2, -1.25)
    p("VCFG sel=ainc payload=%#x" % (0 << 20 | 256), "VCFG sel=ainc payload=%#x" % (1 << 20 | 256))
    marks = []
    nmark = 0
    q = lambda: (rng.random() < 0.5) if dq else 0
    n = rng.randint(8, 40)
    faulted = False
    for _ in range(n):
        r = rng.random()
        if r < 0.12:
            p(f"VFILL frel={rng.randint(0,1)} ad={rng.choice((0,0,2))} start={rng.choice((0,8,16,256,264,32))}")
        elif r < 0.27:
            mode = rng.choice(("f16", "f16", "gt4", "f32"))
            nn = rng.choice((7, 3, 0, 1)) if mode == "f16" else (7 if mode != "gt4" else rng.choice((3, 7)))
            p(f"VUNPK reg={rng.randint(0,7)} mode={mode} n={nn} cb={rng.choice((0,0,4)) if nn==3 else 0} q={int(q())} off={rng.choice((0,8,16,32,256,264))}")
        elif r < 0.45:
            if rng.random() < 0.4:
                cc = chk(*[(rng.randint(0, 7), rng.randint(0, 1)) for _ in range(4)]) if rng.random() < 0.5 else chk()
                p(f"VCFG sel=chkvl payload={(rng.randint(1,128) - 1) << 16 | cc:#x}")
            if rng.random() < 0.25:
                p.xb(mode=rng.randint(0, 4), k=rng.randint(0, 15), sh_=rng.randint(0, 7), pm=rng.randint(0, 2), pr=rng.randint(0, 3))
            op = rng.choice(("VMUL vd={d} va={a} vb={s} sb=s", "VADD vd={d} va={a} vc={b}", "VFMA vd={d} va={a} vb={b} vc={s} sc=s",
                             "VEXP2 vd={d} va={a}", "VCMPLT vd={d} va={a} vb={b}", "VMAX vd={d} va={a} vb={b}"))
            om = " om=1" if rng.random() < 0.5 else ""
            p(op.format(d=rng.randint(0, 11), a=rng.randint(0, 11), b=rng.randint(0, 11), s=rng.randint(0, 2)) + om)
        elif r < 0.60:
            mode = rng.choice(("f16", "f16", "gt4", "f32", "mx7"))
            nn = 7 if mode in ("mx7", "f32", "gt4") else rng.choice((7, 3, 0))
            p(f"VPACK reg={rng.randint(0,11)} mode={mode} n={nn} q={int(q())} off={rng.choice((256,264,272,288,320,360))}")
        elif r < 0.70:
            p(f"VDRAIN frel={rng.randint(0,1)} ad={rng.choice((1,1,3))} start={rng.choice((256,264,272,288,320,0))}")
        elif r < 0.80:
            k = rng.choice("fupmd")
            w = rng.choice(("fe", "u", "m", "p", "a", "d"))
            sq = f" sq={int(q())}" if w in ("u", "p") else ""
            p(f"VSYNC waiter={w} on={k}{sq}")
        elif r < 0.90:
            m = nmark % 8; nmark += 1
            p(f"VSYNC waiter=mk on={rng.choice('fupmd')} mark={m}")
            marks.append(m)
        elif r < 0.995 or seed % 4:
            if marks:
                w = rng.choice(("a", "d", "d", "a", "u", "p", "m", "fe"))
                sq = f" sq={int(q())}" if w in ("u", "p") else ""
                p(f"VSYNC waiter={w} mk=1 mark={rng.choice(marks)}{sq}")
        elif not faulted:
            faulted = True
            p(rng.choice(("VUNPK reg=4 mode=mx7 n=7 off=0", "VUNPK reg=4 mode=gt4 n=1 off=0", "OP op=25")))
    p("VSYNC waiter=d on=p", "VDRAIN ad=1 start=256", "VHALT")
    return p, mem


def rerun(pad):
    """A fault while six 8-beat multiplies are queued: the engines run on
    with the core stopped (its still edges) until the next RUN's soft
    reset, pad payloads later; that RUN packs (plain, MX7, fp32) and
    drains what the multiplies wrote."""
    a = Prog()
    a.desc(0, 64, 8)
    a.desc(1, OUT, 8)
    a.seti(0, 0.75)
    a("VFILL ad=0 start=0", "VBAR", "VUNPK reg=0 n=7 off=0")
    a.chkvl(128)
    for i in range(6):
        a(f"VMUL vd={1 + i % 3} va={0 if i < 3 else 1 + i % 3} vb=0 sb=s")
    a("VSYNC waiter=fe on=u", "OP op=25", "VHALT")
    b = Prog()
    b("VPACK reg=1 n=7 off=256", "VPACK reg=2 mode=mx7 n=7 off=264", "VPACK reg=3 mode=f32 n=7 off=272",
      "VSYNC waiter=d on=p", "VDRAIN ad=1 start=256", "VDRAIN ad=1 start=264", "VHALT")
    return a.payloads(runs=[(a.words(), 0, 0, 0), (b.words(), 64, 64, pad)])


def session(payloads, words):
    """payloads on the V2 core at (1,0) of a mesh, words at DRAM 0x800 (in.hex)."""
    out = ["# a V2 program of tests/data/vector2_rest (prog.hex, in.hex at DRAM 0x800) on the core at (1,0)"]
    for a in range(0, len(words), 64):
        chunk = b"".join(w.to_bytes(32, "little") for w in words[a:a + 64])
        out.append(f"upload DRAM({32 * (64 + a):#x}) hex {chunk.hex()}")
    out.append("write SIG_DONE 0")
    for i, p in enumerate(payloads):
        last = i == len(payloads) - 1
        out.append(f"stage {i} txn={0x41 if last else 1:#x} last={int(last)} payload={p}")
    out += ["write PROG_BASE 0", f"write PROG_LEN {len(payloads)}", "write PROG_DST XY(1,0)", "write PROG_CRED 4",
            "write PROG_KICK 1", "poll NODE_STATUS(1,0) 0x0100000041000001 mask 0xffffffffff0000ff limit 1000000",
            "idle", "dump DRAM(0x10000) 1024"]
    return "\n".join(out) + "\n"


def main():
    root = sys.argv[1]
    _, mem = build(MEM_SEED, False)
    words = [mem.get(i, 0) for i in range(64, 320)]
    with open(os.path.join(root, "in.hex"), "w") as f:
        f.write("".join(format(w, "064x") + "\n" for w in words))
    for c in CASES:
        if c.startswith("rerun"):
            pl = rerun(int(c[5:]))
        else:
            pl = build(int(c[1:].rstrip("q")), c.endswith("q"))[0].payloads()
        d = os.path.join(root, c)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "prog.hex"), "w") as f:
            f.write("\n".join(pl) + "\n")
        if c in MESH:
            with open(os.path.join(d, "mesh.session"), "w") as f:
                f.write(session(pl, words))


if __name__ == "__main__":
    main()

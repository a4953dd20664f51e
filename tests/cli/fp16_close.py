"""Compare the FP16 results a session dumped (kohaku run's `ADDR: HEX` lines,
32 bytes each, in address order) with a reference file of the same bytes'
layout: prints `values N ulp2 U equal E saturated S within W`, where U
counts values within 2 FP16 ulp of the reference, S those at +-65504 and W
those within 2^-9 of the reference's largest magnitude (where two sums of
one dot product cancel, ulps say little). Debian's python3, standard
library only (struct's 'e' is IEEE half precision)."""
import re
import struct
import sys


def dumped(path):
    out = bytearray()
    for line in open(path):
        m = re.match(r"0x[0-9a-f]+: ([0-9a-f]+)$", line.strip())
        if m:
            out += bytes.fromhex(m.group(1))
    return bytes(out)


def ordered(h):
    """An FP16 bit pattern on a line where one step is one ulp."""
    return -(h & 0x7FFF) if h & 0x8000 else h


def main(dump_path, ref_path):
    got, want = dumped(dump_path), open(ref_path, "rb").read()
    if len(got) != len(want):
        print("sizes differ: %d dumped, %d in the reference" % (len(got), len(want)))
        return 1
    n = len(got) // 2
    g = struct.unpack("<%dH" % n, got)
    w = struct.unpack("<%dH" % n, want)
    gf = struct.unpack("<%de" % n, got)
    wf = struct.unpack("<%de" % n, want)
    top = max(abs(x) for x in wf)
    ulp2 = sum(abs(ordered(a) - ordered(b)) <= 2 for a, b in zip(g, w))
    equal = sum(a == b for a, b in zip(g, w))
    sat = sum((a & 0x7FFF) == 0x7BFF for a in g)
    within = sum(abs(a - b) <= top / 512 for a, b in zip(gf, wf))
    print("values %d ulp2 %d equal %d saturated %d within %d" % (n, ulp2, equal, sat, within))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))

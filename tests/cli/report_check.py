"""Independent checks of kohaku's report, heat map and windowed trace
(tests/cli/report.sh; run with Debian's /usr/bin/python3, standard library
only). Each check computes its expectation from the stats JSON, the map
picture or the full trace, never from the text under test.

usage: report_check.py svg STATS.json MAP.txt HEATMAP.svg
       report_check.py report STATS.json REPORT.txt
       report_check.py window FULL.json WINDOWED.json A B
       report_check.py flits TRACE.json TYPE...
       report_check.py timeline TRACE.json
Prints "ok NAME" or "FAIL NAME: why" per check; exit 1 if any failed."""
import json
import re
import sys
import xml.etree.ElementTree as ET

failed = 0


def check(name, cond, why=""):
    global failed
    if cond:
        print("ok", name)
    else:
        failed += 1
        print("FAIL %s: %s" % (name, why))


def close(a, b):
    return abs(a - b) <= 1e-5 * max(1.0, abs(b))


def map_endpoints(path):
    """Endpoint positions of a map picture (mesh.md §2): the cells of the
    (NX+2) x (NY+2) grid that are not corners."""
    rows = [l.split() for l in open(path) if l.strip() and not l.lstrip().startswith("#")]
    ny, nx = len(rows) - 2, len(rows[0]) - 2
    cells = set()
    for y, row in enumerate(rows):
        for x, tok in enumerate(row):
            corner = x in (0, nx + 1) and y in (0, ny + 1)
            if not corner:
                cells.add((x, y, tok))
    return cells


def svg(stats_path, map_path, svg_path):
    st = json.load(open(stats_path))
    cycles = st["cycle"]
    tree = ET.parse(svg_path)  # raises on anything that is not XML
    ns = "{http://www.w3.org/2000/svg}"
    root = tree.getroot()
    check("svg: the root is an svg element", root.tag == ns + "svg", root.tag)
    lines = [e for e in root.iter(ns + "line") if e.get("class") == "link"]
    rects = [e for e in root.iter(ns + "rect") if e.get("class") == "endpoint"]
    links = {l["name"]: l for l in st["links"]}
    names = [e.get("data-name") for e in lines]
    check("svg: one element per link of the stats", sorted(names) == sorted(links), "%d elements, %d links" % (len(names), len(links)))
    bad = [n for e, n in zip(lines, names) if n in links and not close(float(e.get("data-util")), links[n]["flits"] / cycles)]
    check("svg: each link carries flits / cycles", not bad, "wrong: %s" % bad[:3])
    want = map_endpoints(map_path)
    got = set((int(e.get("data-x")), int(e.get("data-y")), e.get("data-token")) for e in rects)
    check("svg: one element per endpoint of the map picture", got == want and len(rects) == len(want), "got %s want %s" % (sorted(got), sorted(want)))
    comps = {c["name"]: c for c in st["components"]}
    bad = []
    for e in rects:
        c = comps.get(e.get("data-comp"))
        if c and c["kind"] == "cu":
            if not close(float(e.get("data-busy")), c["stats"]["cycles"]["busy"] / cycles):
                bad.append(e.get("data-comp"))
        elif c and c["kind"] == "mem_port":
            if not close(float(e.get("data-busy")), c["stats"]["busy_cycles"] / cycles):
                bad.append(e.get("data-comp"))
    check("svg: each unit and memory port carries its busy share", not bad, "wrong: %s" % bad)
    # a position with nothing attached is labelled as empty, not with the
    # map's raw token (each rect is followed by its label's text element)
    kids = list(root.iter())
    empty = [(e, kids[kids.index(e) + 2]) for e in rects if not e.get("data-comp")]
    bad = [(e.get("data-x"), e.get("data-y")) for e, label in empty
           if "empty position" not in e.findtext(ns + "title", "") or label.text != "empty"]
    check("svg: every empty position says so (title and label)", not bad, "wrong: %s" % bad)
    # the control processor: a box in the (0,0) corner wherever a mesh's
    # layout has a link from there, named by the sender of that link
    procs = [e for e in root.iter(ns + "rect") if e.get("class") == "processor"]
    want = [links[l["name"]]["from"] for m in st["run"]["meshes"] for l in m["links"] if l["from"] == [0, 0]]
    check("svg: one processor box per link from the (0,0) corner", sorted(e.get("data-comp") for e in procs) == sorted(want),
          "got %s want %s" % ([e.get("data-comp") for e in procs], want))
    bad = [e.get("data-comp") for e in procs
           if not close(float(e.get("data-busy")), comps[e.get("data-comp")]["stats"]["cycles"]["busy"] / cycles)]
    check("svg: the processor box carries its busy share", not bad, "wrong: %s" % bad)
    text = "".join(root.itertext())
    check("svg: the run's name and cycle count", st["run"]["name"] in text and ("%d cycles" % cycles) in text, text[:120])


def report(stats_path, report_path):
    st = json.load(open(stats_path))
    rep = open(report_path).read().splitlines()
    cycles = st["cycle"]
    comps = {c["name"]: c for c in st["components"]}
    check("report: the run's name and cycles", rep[0] == "report: %s, %d cycles" % (st["run"]["name"], cycles), rep[0])
    # units: four counts per unit, and together they are the whole run
    n = 0
    for c in st["components"]:
        if c["kind"] != "cu":
            continue
        cy = c["stats"]["cycles"]
        row = [l for l in rep if l.split()[:1] == [c["name"]]]
        nums = [int(v) for v in re.findall(r"(\d+) +[\d.]+ %", row[0])] if row else []
        want = [cy["busy"], cy["wait_memory"], cy["wait_instructions"], cy["idle"]]
        check("report: %s cycles as in the stats" % c["name"], nums == want, "%s vs %s" % (nums, want))
        check("report: %s cycles add up to the run" % c["name"], sum(want) == cycles, "%d vs %d" % (sum(want), cycles))
        n += 1
    check("report: every unit", n > 0)
    # drained FP16 values: one row per unit that wrote some, as in its stats
    drained = [c for c in st["components"] if c["kind"] == "cu" and c["stats"].get("drained_values", 0) > 0]
    head = [k for k, l in enumerate(rep) if l.startswith("drained FP16 values:")]
    check("report: a drained-values table exactly when a unit drained", bool(head) == bool(drained), "%s" % head)
    if head and drained:
        rows = {l.split()[0]: l for l in rep[head[0] + 1:head[0] + 1 + len(drained)]}
        bad = []
        for c in drained:
            s = c["stats"]
            t = rows.get(c["name"], "").split()  # name, drained, saturated, share, %, non-finite, share, %
            nums = [int(t[k]) for k in (1, 2, 5)] if len(t) == 8 else t
            if nums != [s["drained_values"], s["saturated"], s["nonfinite"]]:
                bad.append((c["name"], nums))
        check("report: each unit's drained, saturated and non-finite values as in the stats", not bad, "%s" % bad)
    # memory ports: requests and bytes, from the port and its channel
    chans = {}
    for c in st["components"]:
        if c["kind"] == "mem_path":
            for ch in c["stats"]["channels"]:
                chans[ch["what"]] = ch
    for c in st["components"]:
        if c["kind"] != "mem_port":
            continue
        s = c["stats"]
        row = [l for l in rep if l.split()[:1] == [c["name"]]][0]
        m = re.search(r"(\d+) requests +read +(\d+) B +written +(\d+) B", row)
        req = s["plain_reads"] + s["streaming_reads"] + s["write_bursts"]
        ch = chans[c["name"]]
        check("report: %s requests and bytes" % c["name"], m and [int(x) for x in m.groups()] == [req, ch["read_bytes"], ch["write_bytes"]], row)
        m = re.search(r"busy +(\d+)", row)
        check("report: %s busy cycles" % c["name"], m and int(m.group(1)) == s["busy_cycles"], row)
    # the hottest five links: the five largest flit counts, in order
    i = [k for k, l in enumerate(rep) if l.startswith("links: ")][0]
    hot = [(l.split()[0], int(l.split()[1])) for l in rep[i + 1:i + 6]]
    want = sorted(((l["name"], l["flits"]) for l in st["links"]), key=lambda t: -t[1])[:5]
    pairs = set((l["name"], l["flits"]) for l in st["links"])
    check("report: the hottest five links", [f for _, f in hot] == [f for _, f in want] and all(h in pairs for h in hot), "%s vs %s" % (hot, want))
    g = st["run"].get("gemm")
    if g:
        line = [l for l in rep if l.startswith("gemm ")][0]
        m = re.search(r"(\d+) MACs in (\d+) cycles .* = ([\d.]+) MAC/cycle of (\d+) peak", line)
        check("report: the gemm's MACs, cycles and peak", m and int(m.group(1)) == g["macs"] and int(m.group(2)) == g["cycles"] and int(m.group(4)) == g["peak_mac_per_cycle"], line)
        check("report: MAC/cycle = MACs / cycles", m and close(float(m.group(3)), round(g["macs"] / g["cycles"], 1)), line)
        check("report: the gemm's MACs are M x N x K", g["macs"] == g["m"] * g["n"] * g["k"])
        bound = [l for l in rep if l.strip().startswith("bound by: ")]
        top = max(g["utilisation"].items(), key=lambda kv: kv[1])[0]
        check("report: bound by the busiest resource", bound and bound[0].strip().startswith("bound by: " + top), "%s vs %s" % (bound, top))


def events(path):
    return json.load(open(path))["traceEvents"]


def window(full_path, win_path, a, b):
    a, b = int(a), int(b)
    win = [e for e in events(win_path) if e.get("ph") != "M"]
    check("window: the trace has events", len(win) > 0)
    out = [e for e in win if not (a <= e["ts"] and e["ts"] + e.get("dur", 0) <= b)]
    check("window: every event inside [A, B)", not out, str(out[:2]))
    key = lambda e: (e["ts"], e["name"], json.dumps(e.get("args", {}), sort_keys=True))
    full_flits = sorted(key(e) for e in events(full_path) if e.get("cat") == "flit" and a <= e["ts"] < b)
    win_flits = sorted(key(e) for e in win if e.get("cat") == "flit")
    check("window: exactly the full trace's flits of the window", full_flits == win_flits and full_flits, "%d vs %d" % (len(win_flits), len(full_flits)))


def flits(path, *types):
    fl = [e for e in events(path) if e.get("cat") == "flit"]
    check("flits: the trace has flits", len(fl) > 0)
    check("flits: only the types asked for", all(e["name"] in types for e in fl), str(set(e["name"] for e in fl)))


def timeline(path):
    ev = events(path)
    names = set(e["name"] for e in ev if e.get("ph") == "X" and e.get("cat") == "cu")
    check("timeline: instruction slices named by mnemonic", {"FILL", "GEMM", "DRAIN"} <= names, str(names))
    check("timeline: the clusters' sweeps", "sweep" in names, str(names))
    check("timeline: memory-port busy slices", any(e.get("cat") == "mem_port" and e["name"] == "busy" for e in ev))
    cn = set(e["name"].split(" ", 1)[1] for e in ev if e.get("ph") == "C")
    check("timeline: FIFO and credit counters", {"inst fifo", "recv fifo", "credit", "fifo W", "fifo L"} <= cn, str(cn))
    # slices on one track never overlap (Perfetto needs them nested)
    tracks = {}
    for e in ev:
        if e.get("ph") == "X" and e.get("cat") != "flit":
            tracks.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + e["dur"]))
    bad = [k for k, v in tracks.items() if any(x[1] > y[0] for x, y in zip(sorted(v), sorted(v)[1:]))]
    check("timeline: no overlapping slices on a track", not bad, str(bad[:3]))


{"svg": svg, "report": report, "window": window, "flits": flits, "timeline": timeline}[sys.argv[1]](*sys.argv[2:])
sys.exit(1 if failed else 0)

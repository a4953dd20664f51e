"""A trace-event file split per mesh (tests/cli/mpi.sh, docs/mpi.md).

Prints, for each mesh (the "m<i>." prefix of a track's name, or of a
counter event's own name; "-" for those without one), the names of its tracks sorted, then its events in file
order, one JSON object a line. Two files whose outputs are equal hold the
same events for every mesh in the same order.
"""
import json
import re
import sys


def main(path):
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    names = {}
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "thread_name":
            names[(e["pid"], e["tid"])] = e["args"]["name"]
    per_mesh = {}
    for e in events:
        if e.get("ph") == "M":
            continue
        # a counter has no track: its name carries its component's
        name = names.get((e["pid"], e["tid"]), "") if "tid" in e else e.get("name", "")
        m = re.match(r"m(\d+)\.", name)
        per_mesh.setdefault(m.group(1) if m else "-", []).append(json.dumps(e, sort_keys=True))
    tracks = {}
    for (pid, tid), name in names.items():
        m = re.match(r"m(\d+)\.", name)
        tracks.setdefault(m.group(1) if m else "-", []).append("%d/%d %s" % (pid, tid, name))
    for mesh in sorted(set(per_mesh) | set(tracks)):
        print("mesh", mesh)
        for t in sorted(tracks.get(mesh, [])):
            print("  track", t)
        for e in per_mesh.get(mesh, []):
            print("  ", e)


if __name__ == "__main__":
    main(sys.argv[1])

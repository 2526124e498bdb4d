#!/usr/bin/env python3
"""Splits the test classes into lanes of about equal running time, for Scripts/test.sh.

    Scripts/test-lanes.py LANES < list      # `SluicePackageTests.xctest --list-tests` output in;
                                            # one line per lane out: Module.Class,Module.Class,...
                                            # then one line of the classes that run alone
    Scripts/test-lanes.py --update LOG      # rewrites Tests/lane-weights.txt from a test log

Each class's weight is its running time in seconds from Tests/lane-weights.txt (written by
--update from a whole run's log; a class not there counts as 10 s). Classes go, heaviest
first, to the lane with the least time so far (longest-processing-time scheduling). A class
never splits: its tests share set-up and, often, ports. A class marked `solo` in the file
runs after the lanes, alone: its figures need the machine to themselves (a browser's start
within a fixed measuring window, for one).
"""
import re
import sys
from pathlib import Path

WEIGHTS = Path(__file__).resolve().parent.parent / "Tests" / "lane-weights.txt"
UNKNOWN_SECONDS = 10.0


def read_weights():
    """{class: seconds} and the set of classes marked solo."""
    weights, solo = {}, set()
    if WEIGHTS.exists():
        for line in WEIGHTS.read_text().splitlines():
            if line.strip() and not line.startswith("#"):
                fields = line.split()
                weights[fields[0]] = float(fields[1])
                if "solo" in fields[2:]:
                    solo.add(fields[0])
    return weights, solo


def update(log_path):
    """Each `Test Suite 'Class' passed|failed` line is followed by its `Executed … in T (W) seconds`."""
    lines = Path(log_path).read_text(errors="replace").splitlines()
    weights = {}
    for i, line in enumerate(lines[:-1]):
        m = re.match(r"^Test Suite '([A-Za-z0-9_]+)' (passed|failed)", line)
        t = re.search(r"in [0-9.]+ \(([0-9.]+)\) seconds", lines[i + 1])
        if m and t and m.group(1) not in ("debug", "All tests", "Selected tests"):
            weights[m.group(1)] = max(weights.get(m.group(1), 0.0), float(t.group(1)))
    _, solo = read_weights()
    header = (
        "# Seconds per test class in a whole run (Scripts/test-lanes.py --update LOG); balances Scripts/test.sh's lanes.\n"
        "# `solo`: the class runs alone, after the lanes (kept by --update).\n"
    )
    body = "".join(
        f"{name} {seconds:.1f}{' solo' if name in solo else ''}\n"
        for name, seconds in sorted(weights.items(), key=lambda kv: (-kv[1], kv[0])))
    WEIGHTS.write_text(header + body)
    print(f"test-lanes: {len(weights)} classes, {sum(weights.values()):.0f} s in all, into {WEIGHTS}")


def split(lanes, listing):
    classes = sorted({line.split("/")[0] for line in listing if re.match(r"^[A-Za-z0-9_]+\.[A-Za-z0-9_]+/", line)})
    weights, solo = read_weights()
    weight = lambda qualified: weights.get(qualified.split(".", 1)[1], UNKNOWN_SECONDS)
    alone = [c for c in classes if c.split(".", 1)[1] in solo]
    totals = [0.0] * lanes
    members = [[] for _ in range(lanes)]
    for qualified in sorted(set(classes) - set(alone), key=lambda c: (-weight(c), c)):
        lane = totals.index(min(totals))
        totals[lane] += weight(qualified)
        members[lane].append(qualified)
    for lane in range(lanes):
        print(",".join(members[lane]))
        print(f"test-lanes: lane {lane + 1}: {len(members[lane])} classes, ~{totals[lane]:.0f} s", file=sys.stderr)
    print(",".join(alone))
    print(f"test-lanes: alone after the lanes: {len(alone)} classes, ~{sum(map(weight, alone)):.0f} s", file=sys.stderr)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--update":
        update(sys.argv[2])
    elif len(sys.argv) == 2 and sys.argv[1].isdigit() and int(sys.argv[1]) > 0:
        split(int(sys.argv[1]), sys.stdin.read().splitlines())
    else:
        sys.exit(__doc__)

#!/usr/bin/env python3
"""Build time of the CLI, before and after a change (issue 49's "keep": a clean release build
no slower, an edit to one kind rebuilding less).

For each commit: a clean clone in a temporary folder, `swift package resolve` (not timed: it
fetches), then `swift build -c release --product sluice` from nothing (timed: wall, and the
CPU of the build and all its children, user + system), then one kind's file is edited (a
comment line appended to the file named by EDIT, wherever it lives in that commit) and the
same build is timed again, counting the modules the compiler rebuilt.

    COMMITS="f54b20b HEAD" EDIT=JanusTransport.swift Benchmarks/build-time.sh
    OUT=Benchmarks/results-build-time.json (default)

The machine is shared: CPU seconds move less with load than wall seconds, so both are kept and
the ratio of CPU seconds is the figure compared.
"""
import json, os, re, resource, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def timed(cmd, cwd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    done = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.stderr.write(done.stdout[-4000:])
        raise SystemExit(f"build-time: {' '.join(cmd)} failed in {cwd}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall_s": round(wall, 1), "cpu_s": round(cpu, 1)}, done.stdout


def rebuilt_modules(log):
    """The modules the compiler built: SwiftPM prints `Compiling MODULE file.swift` for each
    (not `-v`, whose flag changes the build description and so rebuilds everything)."""
    return sorted(set(re.findall(r"Compiling (\w+) \S+\.(?:swift|c)\b", log)))


def measure(commit, edit, work):
    sha = subprocess.check_output(["git", "rev-parse", commit], cwd=ROOT, text=True).strip()
    clone = os.path.join(work, sha[:12])
    subprocess.run(["git", "clone", "-q", "--no-checkout", ROOT, clone], check=True)
    subprocess.run(["git", "checkout", "-q", sha], cwd=clone, check=True)
    subprocess.run(["swift", "package", "resolve"], cwd=clone, check=True, stdout=subprocess.DEVNULL)
    build = ["swift", "build", "-c", "release", "--product", "sluice"]
    clean, _ = timed(build, clone)
    path = subprocess.check_output(["git", "ls-files", f"*/{edit}"], cwd=clone, text=True).split()
    if len(path) != 1:
        raise SystemExit(f"build-time: {edit} is not one file in {sha[:12]}: {path}")
    with open(os.path.join(clone, path[0]), "a") as f:
        f.write("// build-time: an edit to one kind\n")
    incremental, log = timed(build, clone)
    lines = sum(1 for _ in open(os.path.join(clone, path[0])))
    return {"commit": sha[:12], "clean": clean, "edit": {"file": path[0], "lines": lines, **incremental,
            "modules_rebuilt": rebuilt_modules(log)}}


def main():
    commits = os.environ.get("COMMITS", "f54b20b HEAD").split()
    edit = os.environ.get("EDIT", "JanusTransport.swift")
    out = os.environ.get("OUT", os.path.join(ROOT, "Benchmarks", "results-build-time.json"))
    with tempfile.TemporaryDirectory(prefix="sluice-build-time-") as work:
        results = []
        for commit in commits:
            r = measure(commit, edit, work)
            print(json.dumps(r), flush=True)
            results.append(r)
    first = results[0]
    for r in results[1:]:
        r["clean"]["cpu_ratio"] = round(r["clean"]["cpu_s"] / first["clean"]["cpu_s"], 3)
        r["edit"]["cpu_ratio"] = round(r["edit"]["cpu_s"] / first["edit"]["cpu_s"], 3)
    with open(out, "w") as f:
        json.dump({"benchmark": "build-time", "cores": os.cpu_count(), "recorded_at": time.strftime("%Y-%m-%d"),
                   "how": f'COMMITS="{" ".join(commits)}" EDIT={edit} Benchmarks/build-time.sh', "results": results}, f, indent=2)
        f.write("\n")
    print(f"build-time: written {out}")


if __name__ == "__main__":
    main()

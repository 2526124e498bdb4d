#!/usr/bin/env python3
"""Creates and stops a pipeline N times through the control API of a running `sluice serve`
and prints one JSON line: open fds, threads and resident memory (from /metrics) at the start,
after a warm-up, and at the end, with the time per cycle.

  cycles.py URL --token T --cycles 1000 [--warmup 20]

Each cycle posts a small pipeline (videotestsrc → VP8, audio → Opus), waits until its
encoder has produced frames, stops it, and waits until it has left the list.
"""
import argparse
import json
import time
import urllib.error
import urllib.request

PIPELINE = """version: 1
name: cycle
transport: { kind: server, ice: { addresses: [127.0.0.1] } }
send:
  video:
    capture: { kind: test, pattern: ball, width: 320, height: 240, fps: 30 }
    encode: { codec: vp8, bitrate: 300 }
  audio:
    capture: { kind: test }
    encode: { codec: opus }
"""


def call(method, url, token, body=None, ctype="application/yaml"):
    req = urllib.request.Request(url, data=body.encode() if body else None, method=method,
                                 headers={"Authorization": "Bearer " + token, **({"Content-Type": ctype} if body else {})})
    try:
        with urllib.request.urlopen(req, timeout=20) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def process(url, token):
    _, text = call("GET", url + "/metrics", token)
    values = {}
    for line in text.splitlines():
        for name in ("process_open_fds", "process_threads", "process_resident_memory_bytes"):
            if line.startswith(name + " "):
                values[name] = float(line.split()[1])
    return values


def cycle(api, token):
    status, body = call("POST", api + "/pipelines", token, PIPELINE)
    if status != 201:
        raise SystemExit(f"create answered {status}: {body}")
    deadline = time.time() + 10
    while time.time() < deadline:  # the encoder ran: frames came out
        detail = json.loads(call("GET", api + "/pipelines/cycle", token)[1])
        if detail.get("encoded_video_frames", 0) > 0:
            break
        time.sleep(0.02)
    else:
        raise SystemExit("the pipeline produced no frames within 10 s")
    status, body = call("DELETE", api + "/pipelines/cycle", token)
    if status != 200 or json.loads(body).get("state") != "stopped":
        raise SystemExit(f"stop answered {status}: {body}")
    # The answer comes once the pipeline is gone: the next cycle may reuse its name at once.
    status = call("GET", api + "/pipelines/cycle", token)[0]
    if status != 404:
        raise SystemExit(f"the stopped pipeline still answers {status}")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("url")
    p.add_argument("--token", required=True)
    p.add_argument("--cycles", type=int, default=1000)
    p.add_argument("--warmup", type=int, default=20)
    args = p.parse_args()
    api = args.url + "/api/v1"
    start = process(args.url, args.token)
    for _ in range(args.warmup):
        cycle(api, args.token)
    time.sleep(1)
    warm = process(args.url, args.token)
    t = time.time()
    for _ in range(args.cycles):
        cycle(api, args.token)
    seconds = time.time() - t
    time.sleep(1)
    end = process(args.url, args.token)
    print(json.dumps(dict(start=start, warm=warm, end=end, cycles=args.cycles,
                          seconds_per_cycle=round(seconds / max(1, args.cycles), 3))))


if __name__ == "__main__":
    main()

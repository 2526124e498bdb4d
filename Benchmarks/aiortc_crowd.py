#!/usr/bin/env python3
"""The aiortc crowd of Tests/Interop/aiortc/aiortc_peer.py, unchanged, with one addition for
Benchmarks/load_clients.py: a thread that writes every viewer's frame count (decoded
pictures, or encoded frames for the viewers that do not decode) twice a second, as lines
`MONOTONIC COUNT0 COUNT1 ...` to the file named by CROWD_SAMPLES. The benchmark takes each
viewer's frame rate over its own window from them (whep-crowd itself prints only totals).

    CROWD_SAMPLES=/tmp/s.txt aiortc_crowd.py whep-crowd URL --viewers N --seconds S --decode K
"""
import os, sys, threading, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "Tests/Interop/aiortc"))
import aiortc_peer  # noqa: E402

VIEWERS = []


class _CountedViewer(aiortc_peer._Viewer):
    def __init__(self):
        super().__init__()
        VIEWERS.append(self)


def sample(path):
    with open(path, "w") as f:
        while True:
            counts = " ".join(str(v.frames + v.encoded) for v in list(VIEWERS))
            f.write(f"{time.monotonic():.3f} {counts}\n")
            f.flush()
            time.sleep(0.5)


if __name__ == "__main__":
    aiortc_peer._Viewer = _CountedViewer
    threading.Thread(target=sample, args=(os.environ["CROWD_SAMPLES"],), daemon=True).start()
    aiortc_peer.main()

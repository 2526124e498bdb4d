"""The fan-out setup the operate benchmarks share: `sluice serve` with one 720p30 H.264
stream (Benchmarks/fanout-720p-h264.yaml) and N `sluice run` viewers without decoding
(Benchmarks/fanout-viewer.yaml), started 0.25 s apart (32 simultaneous ICE starts on 2
cores miss their timeout)."""
import os, subprocess, sys, time, urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SLUICE = os.path.abspath(os.environ.get("SLUICE") or os.path.join(ROOT, ".build/release/sluice"))


def get(base, path, timeout=5):
    with urllib.request.urlopen(base + path, timeout=timeout) as r:
        return r.read()


def start(port, viewers, seconds, serve_args=()):
    """Starts the server and the viewers; returns (server, [viewer processes]). The caller
    waits for them to connect and ends them with `stop`."""
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen([SLUICE, "serve", "--port", str(port), "--pipeline", "Benchmarks/fanout-720p-h264.yaml", *serve_args],
                              cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    procs = []
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                get(base, "/healthz"); break
            except OSError:
                if time.monotonic() > deadline: sys.exit("the server did not start")
                time.sleep(0.05)
        env = dict(os.environ, SLUICE_WHEP=f"{base}/whep/fanout")
        for _ in range(viewers):
            time.sleep(0.25)
            procs.append(subprocess.Popen([SLUICE, "run", "Benchmarks/fanout-viewer.yaml", "--duration", str(seconds), "--quiet"],
                                          cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    except BaseException:
        stop(server, procs)
        raise
    return server, procs


def stop(server, procs):
    for v in procs: v.kill()
    for v in procs: v.wait()
    server.terminate(); server.wait(timeout=15)

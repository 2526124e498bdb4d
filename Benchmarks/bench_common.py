"""Helpers the benchmark scripts share."""
import os, sys, time, urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_SLUICE = os.path.join(ROOT, ".build/release/sluice")
# The binary under test: SLUICE, else the release build (Benchmarks/sluice-binary.sh builds it
# when SLUICE is not set, and exports SLUICE either way).
SLUICE = os.path.abspath(os.environ.get("SLUICE") or DEFAULT_SLUICE)


def wait_http(url, seconds=20):
    """Waits (bounded) until `url` answers; exits the benchmark with a message if it never does."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            urllib.request.urlopen(url, timeout=1).read()
            return
        except OSError:
            if time.monotonic() > deadline:
                sys.exit(f"{url} did not answer within {seconds} s")
            time.sleep(0.05)


def settings_given(keys):
    """`K=V ...` for each of `keys` set in the environment, for a result's "how". The wrappers
    export SLUICE even when they built the default binary, so SLUICE is left out when it is
    .build/release/sluice, and shown relative to the repository when it is inside it."""
    given = []
    for k in keys:
        v = os.environ.get(k)
        if v is None:
            continue
        if k == "SLUICE":
            path = os.path.abspath(v)
            if not v or path == DEFAULT_SLUICE:
                continue
            v = os.path.relpath(path, ROOT) if path.startswith(ROOT + os.sep) else v
        given.append(f"{k}={v}")
    return " ".join(given)

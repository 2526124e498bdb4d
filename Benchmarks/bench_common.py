"""Helpers the benchmark scripts share."""
import sys, time, urllib.request


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

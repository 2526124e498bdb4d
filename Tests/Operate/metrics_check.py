#!/usr/bin/env python3
"""Scrapes a Sluice server's /metrics between two reads of /streams.json and parses it with
Prometheus's own parser (prometheus_client.parser), for the metrics tests.

    metrics_check.py BASE_URL STREAM [--token T]
    metrics_check.py BASE_URL --until-gone [--token T]

Prints one JSON line: the metric families (name → type), the samples of STREAM, and the
stream's `viewers` and `encoded_video_frames` from /streams.json before and after the scrape.
With --until-gone (for `sluice run --metrics`): scrapes every 0.2 s until the server stops
answering, then prints the last scrape's families and samples, how many scrapes there were,
how many of them saw `sluice_run_playing` at 1, and the seconds between the first and the last.
Exits 1 with a message on stderr when the text does not parse.
"""
import argparse
import json
import sys
import time
import urllib.request

from prometheus_client.parser import text_string_to_metric_families


def get(url, token):
    req = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"} if token else {})
    with urllib.request.urlopen(req, timeout=10) as r:
        return r.status, r.headers.get("Content-Type", ""), r.read().decode()


def stream_row(base, name, token):
    _, _, body = get(base + "/streams.json", token)
    return next((s for s in json.loads(body) if s["name"] == name), {})


def parse(text):
    try:
        families = list(text_string_to_metric_families(text))
    except Exception as e:  # the parser's own complaint is the finding
        print(f"metrics_check: /metrics does not parse: {e}\n{text[:2000]}", file=sys.stderr)
        sys.exit(1)
    samples = {}
    for f in families:
        for s in f.samples:
            labels = ",".join(f"{k}={v}" for k, v in sorted(s.labels.items()))
            samples[f"{s.name}{{{labels}}}"] = s.value
    return {f.name: f.type for f in families}, samples


def until_gone(base, token):
    last, scrapes, first_at, last_at = None, 0, None, None
    playing_scrapes = 0  # scrapes that saw sluice_run_playing 1 (the last may come while it stops)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            _, _, text = get(base + "/metrics", token)
        except OSError:
            if last is not None:
                break
            time.sleep(0.05)
            continue
        last_at = time.monotonic()
        first_at = first_at or last_at
        last, scrapes = text, scrapes + 1
        if any(line.startswith("sluice_run_playing{") and float(line.split()[-1]) == 1 for line in text.splitlines()):
            playing_scrapes += 1
        time.sleep(0.2)
    if last is None:
        print("metrics_check: /metrics never answered", file=sys.stderr)
        sys.exit(1)
    families, samples = parse(last)
    print(json.dumps({"families": families, "samples": samples, "scrapes": scrapes,
                      "playing_scrapes": playing_scrapes, "seconds": round(last_at - first_at, 2)}), flush=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("url")
    p.add_argument("stream", nargs="?")
    p.add_argument("--token")
    p.add_argument("--until-gone", action="store_true")
    a = p.parse_args()
    base = a.url.rstrip("/")
    if a.until_gone:
        return until_gone(base, a.token)
    before = stream_row(base, a.stream, a.token)
    status, ctype, text = get(base + "/metrics", a.token)
    after = stream_row(base, a.stream, a.token)
    families, samples = parse(text)
    print(json.dumps({
        "status": status, "content_type": ctype,
        "families": families,
        "samples": samples,
        "before": before, "after": after,
    }), flush=True)


if __name__ == "__main__":
    main()

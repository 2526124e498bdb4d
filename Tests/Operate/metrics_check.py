#!/usr/bin/env python3
"""Scrapes a Sluice server's /metrics between two reads of /streams.json and parses it with
Prometheus's own parser (prometheus_client.parser), for the metrics tests.

    metrics_check.py BASE_URL STREAM [--token T]

Prints one JSON line: the metric families (name → type), the samples of STREAM, and the
stream's `viewers` and `encoded_video_frames` from /streams.json before and after the scrape.
Exits 1 with a message on stderr when the text does not parse.
"""
import argparse
import json
import sys
import urllib.request

from prometheus_client.parser import text_string_to_metric_families


def get(url, token):
    req = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"} if token else {})
    with urllib.request.urlopen(req, timeout=10) as r:
        return r.status, r.headers.get("Content-Type", ""), r.read().decode()


def stream_row(base, name, token):
    _, _, body = get(base + "/streams.json", token)
    return next((s for s in json.loads(body) if s["name"] == name), {})


def main():
    p = argparse.ArgumentParser()
    p.add_argument("url")
    p.add_argument("stream")
    p.add_argument("--token")
    a = p.parse_args()
    base = a.url.rstrip("/")
    before = stream_row(base, a.stream, a.token)
    status, ctype, text = get(base + "/metrics", a.token)
    after = stream_row(base, a.stream, a.token)
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
    print(json.dumps({
        "status": status, "content_type": ctype,
        "families": {f.name: f.type for f in families},
        "samples": samples,
        "before": before, "after": after,
    }), flush=True)


if __name__ == "__main__":
    main()

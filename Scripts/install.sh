#!/usr/bin/env bash
# Installs the Debian packages Sluice needs to build, run and test, if any are missing.
# Safe to run again: installs nothing when everything is there.
set -euo pipefail
# SLUICE_PROFILE: `all` (default: build, run and test, as CI and development machines need),
# `build` (what compiling needs: deploy/Containerfile's build stage), `runtime` (what
# `sluice` needs to run: the container's final stage) or `run` (build + runtime + the
# loopback-only namespace tools: what Scripts/install-and-run.sh needs; no browsers, Go,
# prosody, janus, valgrind or PyPI packages).
profile=${SLUICE_PROFILE:-all}
runtime=(
  gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-bad
  gstreamer1.0-plugins-ugly gstreamer1.0-nice gstreamer1.0-libav
  curl                                                 # the container's health check
  graphviz                                             # `sluice graph -o x.svg` and /pipelines/<name>/graph.svg
)
build=(
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev libgstreamer-plugins-bad1.0-dev libnice-dev
  libcurl4-openssl-dev libxml2-dev                     # --static-swift-stdlib (the container's binary) links Foundation against them
)
testing=(
  gstreamer1.0-tools gstreamer1.0-plugins-base-apps   # gst-launch-1.0, gst-discoverer-1.0 (tests, benchmarks)
  iproute2 util-linux                                  # ip, unshare: loopback-only namespaces; curl: test readiness checks
  openssl                                              # a throwaway certificate for the HTTPS test
  valgrind                                             # the bindings' memory check
  chromium chromium-driver python3-venv                # the browser tests (selenium drives /usr/bin/chromedriver)
  golang-go golang-github-pion-webrtc.v3-dev           # the Pion interop peer (Tests/Interop/pion/build.sh)
  firefox-esr                                          # the Firefox interop peer (marionette-driver drives it)
  prosody                                              # the XMPP server of the Jingle tests (started by the tests on loopback)
  janus                                                # the SFU of the Janus VideoRoom tests (started by the tests in their namespace)
  coturn                                               # the TURN server of the relay-only load test (started by the test in its namespace)
  iptables                                             # NAT between namespaces: a load test's netem groups reach their service through it
  nginx                                                # the proxy in front of two sluice serve replicas (deploy/nginx/replicas.conf, started by the test)
  podman runc catatonit debootstrap                    # the container tests: deploy/build-image.sh's image, run and kube-played (runc: deploy/containers.conf)
  libjs-janus-gateway libjs-webrtc-adapter             # janus.js and adapter.js: Chromium joins the room through Janus's own API
  gir1.2-gst-rtsp-server-1.0 python3-gi                # the RTSP server the rtsp capture tests stream from (Tests/Interop/rtsp, Debian's python3)
  ffmpeg libnginx-mod-rtmp srt-tools                   # the rtmp, srt and uri capture tests: ffmpeg publishes, nginx-rtmp and srt-live-transmit relay
)
namespace=(
  iproute2 util-linux                                  # ip, unshare: the loopback-only namespace install-and-run.sh runs in
)
case "$profile" in
  run) packages=("${build[@]}" "${runtime[@]}" "${namespace[@]}") ;;
  runtime) packages=("${runtime[@]}") ;;
  build) packages=("${build[@]}") ;;
  all) packages=("${build[@]}" "${runtime[@]}" "${testing[@]}") ;;
  *) echo "install.sh: SLUICE_PROFILE must be all, build, runtime or run" >&2; exit 2 ;;
esac
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install.sh: all ${#packages[@]} packages present"
else
  echo "install.sh: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# The Python tools below are for tests only.
[ "$profile" = all ] || exit 0

# The browser tests' driver: selenium (PyPI) in a virtual environment at .venv (gitignored),
# made with Debian's python3. The tests point selenium at /usr/bin/chromedriver and
# /usr/bin/chromium, so Selenium Manager never downloads anything.
cd "$(dirname "$0")/.."
if ! .venv/bin/python -c 'import selenium' 2>/dev/null; then
  echo "install.sh: creating .venv with selenium"
  /usr/bin/python3 -m venv .venv
  .venv/bin/pip install -q selenium
fi
echo "install.sh: selenium $(.venv/bin/python -c 'import selenium; print(selenium.__version__)') in .venv"
# The Firefox interop peer's driver (Tests/Interop/firefox): marionette-driver (PyPI) in the same
# .venv; it talks to Debian's /usr/bin/firefox-esr started with --marionette.
if ! .venv/bin/python -c 'import marionette_driver' 2>/dev/null; then
  echo "install.sh: installing marionette-driver into .venv"
  .venv/bin/pip install -q marionette-driver
fi
echo "install.sh: marionette-driver $(.venv/bin/python -c 'import importlib.metadata as m; print(m.version("marionette-driver"))') in .venv"
# The aiortc interop peer (Tests/Interop/aiortc): aiortc (PyPI, with its PyAV wheels), aiohttp
# for its WHEP HTTP, numpy for its synthetic picture and pixel checks.
if ! .venv/bin/python -c 'import aiortc, aiohttp, numpy' 2>/dev/null; then
  echo "install.sh: installing aiortc, aiohttp and numpy into .venv"
  .venv/bin/pip install -q aiortc aiohttp numpy
fi
echo "install.sh: aiortc $(.venv/bin/python -c 'import aiortc; print(aiortc.__version__)') in .venv"
# python-zeroconf: the foreign multicast DNS peer of the LAN tests (it answers for the
# .local names an aiortc offer carries instead of its addresses).
if ! .venv/bin/python -c 'import zeroconf' 2>/dev/null; then
  echo "install.sh: installing zeroconf into .venv"
  .venv/bin/pip install -q zeroconf
fi
# slixmpp: the foreign XMPP client of the Jingle tests (Tests/Interop/xmpp), with aiortc.
if ! .venv/bin/python -c 'import slixmpp' 2>/dev/null; then
  echo "install.sh: installing slixmpp into .venv"
  .venv/bin/pip install -q slixmpp
fi
# PyJWT with its cryptography: the foreign JWT issuer of the token tests (Tests/Interop/jwt).
if ! .venv/bin/python -c 'import jwt, cryptography' 2>/dev/null; then
  echo "install.sh: installing pyjwt[crypto] into .venv"
  .venv/bin/pip install -q 'pyjwt[crypto]'
fi
# pychromecast: the foreign Cast sender of the Cast receiver tests (Tests/Interop/cast).
if ! .venv/bin/python -c 'import pychromecast' 2>/dev/null; then
  echo "install.sh: installing pychromecast into .venv"
  .venv/bin/pip install -q pychromecast
fi
# The metrics tests parse /metrics with Prometheus's own Python parser.
if ! .venv/bin/python -c 'import prometheus_client' 2>/dev/null; then
  echo "install.sh: installing prometheus-client into .venv"
  .venv/bin/pip install -q prometheus-client
fi
# The control API test runs schemathesis against the served OpenAPI document.
if ! .venv/bin/python -c 'import schemathesis' 2>/dev/null; then
  echo "install.sh: installing schemathesis into .venv"
  .venv/bin/pip install -q schemathesis
fi
# The container tests build deploy/Containerfile offline: its base (debootstrap) and its
# package layer are made here, where downloading is allowed, and kept in podman's store.
if command -v podman > /dev/null; then
  deploy/build-image.sh --prepare
fi
# The deploy test validates deploy/k8s against the Kubernetes schemas (bundled, offline).
if ! .venv/bin/python -c 'import kubernetes_validate' 2>/dev/null; then
  echo "install.sh: installing kubernetes-validate into .venv"
  .venv/bin/pip install -q kubernetes-validate
fi

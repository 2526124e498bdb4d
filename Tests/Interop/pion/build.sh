#!/usr/bin/env bash
# Builds the Pion interop peer (pionpeer) offline from Debian's Go packages.
#   Tests/Interop/pion/build.sh [OUT]     (default OUT: .build/interop/pionpeer under the repo root)
# Needs golang-go and golang-github-pion-webrtc.v3-dev (Scripts/install.sh installs them).
# GOPATH mode (GO111MODULE=off): Debian ships Go sources under /usr/share/gocode/src, but
# GOPATH mode cannot resolve a module's /vN import path (github.com/pion/webrtc/v3) to a folder
# without that /vN suffix, so a private GOPATH gets a symlink per such module.
# Idempotent; does nothing when OUT is newer than the sources.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
out="${1:-$root/.build/interop/pionpeer}"
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
work="$root/.build/interop"
gopath="$work/gopath"
debsrc=/usr/share/gocode/src

command -v go >/dev/null || { echo "build.sh: go not found (apt-get install golang-go golang-github-pion-webrtc.v3-dev)" >&2; exit 1; }
[ -d "$debsrc/github.com/pion/webrtc" ] || { echo "build.sh: $debsrc/github.com/pion/webrtc missing (apt-get install golang-github-pion-webrtc.v3-dev)" >&2; exit 1; }

# Up to date? The binary must be newer than this folder's files and than the Debian Go sources' installs.
if [ -x "$out" ] && [ -z "$(find "$here" -newer "$out" -type f | head -1)" ] \
   && [ -z "$(find /var/lib/dpkg/info -name 'golang-*.list' -newer "$out" | head -1)" ]; then
  echo "build.sh: $out is up to date" >&2
  exit 0
fi

mkdir -p "$gopath/src" "$work/gocache" "$(dirname "$out")"
# One symlink per Debian Go module whose go.mod declares a /vN path that is not already its folder.
while IFS= read -r mod; do
  dir="$(dirname "$mod")"
  path="$(awk '$1 == "module" { gsub(/"/, "", $2); print $2; exit }' "$mod")"
  [[ "$path" =~ /v[0-9]+$ ]] || continue
  [ "$dir" = "$debsrc/$path" ] && continue          # e.g. github.com/pion/dtls/v2 ships in a v2/ folder
  link="$gopath/src/$path"
  [ "$(readlink "$link" 2>/dev/null)" = "$dir" ] && continue
  mkdir -p "$(dirname "$link")"
  ln -sfn "$dir" "$link"
done < <(find "$debsrc" -name go.mod -not -path '*/testdata/*' 2>/dev/null)

export GO111MODULE=off GOFLAGS= GOPROXY=off GOTOOLCHAIN=local CGO_ENABLED=0
export GOPATH="$gopath:/usr/share/gocode" GOCACHE="$work/gocache"
cd "$here"
go build -trimpath -o "$out.tmp" .
mv -f "$out.tmp" "$out"
echo "build.sh: built $out" >&2

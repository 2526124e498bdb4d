#!/usr/bin/env bash
# Builds the Sluice image (deploy/Containerfile) with no registry at all:
#
#   deploy/build-image.sh [TAG]            (default localhost/sluice:latest)
#   deploy/build-image.sh --prepare        only the base and the package layer (the steps that
#                                          download; Scripts/install.sh runs this for the tests,
#                                          which then build offline from podman's layer cache)
#
# - The base is Debian 12 made here: debootstrap --variant=minbase without documentation,
#   translations or package caches, imported once as localhost/sluice-base:bookworm-N and
#   kept (podman's own store is the cache).
# - The binary is built on the host (swift build -c release --static-swift-stdlib), stripped,
#   and copied in (BINARY=prebuilt), rather than compiled inside: there is no Swift image to
#   pull, and mounting the 3.3 GB toolchain and the package copies into a build would compile
#   everything a second time. The Containerfile's default (BINARY=compiled, the official Swift
#   image) stays for users with a registry.
# - SLUICE_BINARY=PATH takes that binary instead (the tests give their debug build); Swift
#   libraries it links from the toolchain are copied next to it.
#
# podman runs with deploy/containers.conf (runc, no default ulimits) unless CONTAINERS_CONF is
# set. Builds use the network they run in (--network host): a build bridge would turn on IPv4
# forwarding for the whole host (netavark does), which new network namespaces then inherit. Prints the image's size at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
prepare=0
[ "${1:-}" = --prepare ] && { prepare=1; shift; }
tag=${1:-localhost/sluice:latest}
export CONTAINERS_CONF=${CONTAINERS_CONF:-$PWD/deploy/containers.conf}
# The base's tag names its recipe: change the number when the recipe below changes.
base=localhost/sluice-base:bookworm-2
# The Debian mirror this machine's apt uses (deb822 sources first, then one-line ones):
# the image is made from the same packages, and no mirror's name is written here.
mirror=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '/^URIs:/ {print $2; exit}' || true)
[ -n "$mirror" ] || mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | awk '$1 == "deb" {for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) {print $i; exit}}' || true)
[ -n "$mirror" ] || { echo "build-image: no Debian mirror found in /etc/apt/sources.list.d/*.sources or sources.list: configure apt first" >&2; exit 1; }

if ! podman image exists "$base"; then
  root=$(mktemp -d)
  trap 'rm -rf "$root"' EXIT
  echo "build-image: making $base with debootstrap from $mirror"
  debootstrap --variant=minbase bookworm "$root" "$mirror" > "$root.log" 2>&1 || { tail -20 "$root.log"; exit 1; }
  rm -f "$root.log"
  # As Debian's slim images: no documentation, manuals or translations, now or from later
  # packages; no downloaded packages or package lists (the runtime stage updates them).
  printf '%s\n' 'path-exclude /usr/share/doc/*' 'path-include /usr/share/doc/*/copyright' 'path-exclude /usr/share/man/*' \
    'path-exclude /usr/share/info/*' 'path-exclude /usr/share/locale/*' 'path-include /usr/share/locale/en*' \
    > "$root/etc/dpkg/dpkg.cfg.d/sluice-slim"
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/* "$root"/usr/share/man/* "$root"/usr/share/info/*
  find "$root/usr/share/doc" -mindepth 1 ! -name copyright ! -type d -delete
  find "$root/usr/share/locale" -mindepth 1 -maxdepth 1 ! -name 'en*' -exec rm -rf {} +
  tar -C "$root" -c . | podman import --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' - "$base" > /dev/null
fi

# The runtime packages (the Containerfile's `runtime` stage): cached by podman while the base,
# Scripts/install.sh and the stage's lines stay the same.
podman build -q --network host --format docker -f deploy/Containerfile --build-arg RUNTIME_IMAGE="$base" --target runtime . > /dev/null
[ "$prepare" = 0 ] || { echo "build-image: $base and the runtime packages are ready"; exit 0; }

out=deploy/.out
rm -rf "$out" && mkdir -p "$out/usr/local/bin"
binary=${SLUICE_BINARY:-}
if [ -z "$binary" ]; then
  echo "build-image: swift build -c release --static-swift-stdlib"
  swift build -c release --product sluice --static-swift-stdlib
  binary="$(swift build -c release --show-bin-path)/sluice"
fi
strip -o "$out/usr/local/bin/sluice" "$binary"
# A binary linked against the toolchain's Swift libraries takes them along.
toolchain=$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")
{ ldd "$binary" | awk '{print $3}' | grep "^$toolchain/" || true; } | while read -r lib; do
  mkdir -p "$out/usr/local/lib" && strip -o "$out/usr/local/lib/$(basename "$lib")" "$lib"
done

podman build -q --network host --format docker -f deploy/Containerfile --build-arg RUNTIME_IMAGE="$base" --build-arg BINARY=prebuilt -t "$tag" . > /dev/null
rm -rf "$out"
size=$(podman image inspect "$tag" --format '{{.Size}}')
echo "build-image: $tag, $((size / 1000000)) MB"

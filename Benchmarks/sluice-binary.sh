# The Sluice binary a benchmark uses, one rule for every Benchmarks/*.sh. Sourced after
# `cd "$(dirname "$0")/.."`:
#   . Benchmarks/sluice-binary.sh
#   sluice_binary [--quiet] [PRODUCT...]
# SLUICE set (and not empty): that binary is used and nothing is built; it must be an
# executable file, or the script exits 2. Each PRODUCT (e.g. sluice-filter-bench) is looked
# for beside it, in the same folder; when it is missing there and that folder is this
# repository's .build/release or .build/debug, it is built with that configuration, else the
# script exits 2 saying which command builds it.
# SLUICE unset: `swift build -c release --product sluice`, then one `swift build -c release
# --product PRODUCT` per PRODUCT; SLUICE is .build/release/sluice.
# Either way SLUICE is exported as an absolute path. A failed build exits 2; --quiet shows a
# build's output only when it fails.

_SLUICE_REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

_sluice_build() {  # _sluice_build QUIET CONFIGURATION PRODUCT
  if [ "$1" = 1 ]; then
    local log; log=$(mktemp)
    (cd "$_SLUICE_REPO" && swift build -c "$2" --product "$3") >"$log" 2>&1 ||
      { grep -E "error" "$log" >&2 || tail -20 "$log" >&2; rm -f "$log"; exit 2; }
    rm -f "$log"
  else
    (cd "$_SLUICE_REPO" && swift build -c "$2" --product "$3") || exit 2
  fi
}

_sluice_physical() {  # the folder $1 with symlinks resolved, or nothing when it does not exist
  [ -d "$1" ] && (cd "$1" && pwd -P)
}

sluice_binary() {
  local quiet=0
  if [ "${1:-}" = --quiet ]; then quiet=1; shift; fi
  local product
  if [ -z "${SLUICE:-}" ]; then
    _sluice_build "$quiet" release sluice
    for product in "$@"; do _sluice_build "$quiet" release "$product"; done
    export SLUICE="$_SLUICE_REPO/.build/release/sluice"
    return 0
  fi
  if [ ! -f "$SLUICE" ] || [ ! -x "$SLUICE" ]; then
    echo "no sluice binary at $SLUICE: build one (swift build -c release --product sluice) or unset SLUICE" >&2
    exit 2
  fi
  local dir; dir="$(cd "$(dirname "$SLUICE")" && pwd)"
  export SLUICE="$dir/$(basename "$SLUICE")"
  local here release debug configuration
  here="$(_sluice_physical "$dir")"
  release="$(_sluice_physical "$_SLUICE_REPO/.build/release" || true)"
  debug="$(_sluice_physical "$_SLUICE_REPO/.build/debug" || true)"
  for product in "$@"; do
    [ -f "$dir/$product" ] && [ -x "$dir/$product" ] && continue
    configuration=
    if [ -n "$release" ] && [ "$here" = "$release" ]; then configuration=release
    elif [ -n "$debug" ] && [ "$here" = "$debug" ]; then configuration=debug
    fi
    if [ -z "$configuration" ]; then
      echo "no $product beside $SLUICE: build it (swift build -c release --product $product, in $_SLUICE_REPO)" \
           "and copy .build/release/$product into $dir, or unset SLUICE" >&2
      exit 2
    fi
    _sluice_build "$quiet" "$configuration" "$product"
    [ -x "$dir/$product" ] || { echo "swift build -c $configuration --product $product did not make $dir/$product" >&2; exit 2; }
  done
}

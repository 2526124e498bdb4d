#!/bin/bash
# swift-format over every hand-written Swift file (generated OpenAPI and protobuf code excluded),
# with the layout-only configuration in .swift-format.
#   Scripts/format.sh          rewrite the files in place
#   Scripts/format.sh --check  fail, listing the findings, if any file is not formatted
set -euo pipefail
cd "$(dirname "$0")/.."
# DocsVignette.swift, DocsBalance.swift and DocsTrailer.swift are docs/filters.md's Swift blocks word for word (their alignment is the docs').
files() { git ls-files '*.swift' | grep -v -e '^Sources/SluiceControlAPI/Generated/' -e '\.pb\.swift$' -e '^Tests/SluiceFilterKitTests/DocsVignette\.swift$' -e '^Tests/SluiceFilterKitTests/DocsBalance\.swift$' -e '^Tests/SluiceFilterKitTests/DocsTrailer\.swift$'; }
if [ "${1:-}" = "--check" ]; then
    findings=$(files | xargs swift format lint --configuration .swift-format 2>&1 || true)
    if [ -n "$findings" ]; then
        echo "$findings" | head -40
        echo "format: $(echo "$findings" | wc -l) finding(s); run Scripts/format.sh to fix them" >&2
        exit 1
    fi
    echo "format: $(files | wc -l) files formatted"
else
    files | xargs swift format format -i --configuration .swift-format
fi

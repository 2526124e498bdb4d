#!/usr/bin/env bash
# Writes the man pages of `sluice` and of each subcommand into docs/man/ (committed), with
# swift-argument-parser's generate-manual plugin. Run it after changing a command's options
# or help text; docs/api.md tells more.
#
# The plugin builds every product (release, unless CONFIGURATION=debug), runs each
# ArgumentParser executable with --experimental-dump-help and writes the pages into its own
# work folder, .build/plugins/GenerateManual/outputs/TARGET/ (it sets --output-directory
# itself, so we copy from there). The pages carry the date of the last commit, so running it
# twice on the same commit changes nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
configuration=${CONFIGURATION:-release}
date=$(git log -1 --format=%cs 2>/dev/null || date +%F)
outputs=.build/plugins/GenerateManual/outputs
rm -rf "$outputs"
swift package generate-manual --configuration "$configuration" --multi-page --date "$date"
# One folder per executable target with an ArgumentParser product (today: sluice).
pages=$(find "$outputs" -name '*.1' | sort)
[ -n "$pages" ] || { echo "generate-manuals.sh: the plugin wrote no page under $outputs" >&2; exit 1; }
rm -rf docs/man
mkdir -p docs/man
cp $pages docs/man/
echo "generate-manuals.sh: wrote $(echo "$pages" | wc -l) pages to docs/man/"

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
# Hidden commands (started by sluice itself: measure-peer, netem-relay) and the help command
# get no page and no "see also" entry; the exit status names Sluice's codes, not ">0".
hidden="measure-peer netem-relay help"
for page in $pages; do
    name=$(basename "$page" .1)
    skip=0
    for h in $hidden; do [ "$name" = "sluice.$h" ] && skip=1; done
    [ $skip = 1 ] && continue
    python3 - "$page" "docs/man/$name.1" "$hidden" <<'PY'
import re, sys
src, dst, hidden = sys.argv[1], sys.argv[2], sys.argv[3].split()
text = open(src).read()
for h in hidden:
    text = re.sub(r'\.Xr sluice\.' + re.escape(h) + r' 1 ,?\n', '', text)
text = re.sub(r' ,\n(\.Sh|$)', r'\n\1', text.replace(' ,\n.Sh', '\n.Sh'))
text = re.sub(r',(\n?)$', r'\1', text.rstrip('\n')) + '\n'
codes = ('.Sh "EXIT STATUS"\n.Bl -tag -width 3n\n.It 0\nSuccess.\n.It 2\nThe pipeline file or the arguments are invalid '
         '(the message names FILE:LINE:COL).\n.It 3\nA runtime failure: a missing element, a failed negotiation, ICE not '
         'connected in time, a port in use.\n.El\n')
text = text.replace('.Sh "EXIT STATUS"\n.Ex -std\n', codes)
if src.endswith('/sluice.1'):
    # The root page lists the commands with their one-line summaries, from their own pages.
    import glob, os
    items = []
    for page in sorted(glob.glob(os.path.join(os.path.dirname(src), 'sluice.*.1'))):
        name = os.path.basename(page)[len('sluice.'):-2]
        if '.' in name or name in hidden: continue
        summary = re.search(r'^\.Nd "?(.*?)"?$', open(page).read(), re.M)
        items.append(f'.It Cm {name}\n{summary.group(1) if summary else ""}\n')
    text = text.replace('.Sh "EXIT STATUS"', '.Sh COMMANDS\n.Bl -tag -width 10n\n' + ''.join(items) + '.El\n.Sh "EXIT STATUS"', 1)
open(dst, 'w').write(text)
PY
done
echo "generate-manuals.sh: wrote $(ls docs/man | wc -l) pages to docs/man/"

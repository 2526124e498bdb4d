#!/usr/bin/env bash
# Memory check of the GStreamer bindings and the in-process WebRTC run.
#
# 1. valgrind memcheck: runs every GStreamerTests class, SluiceRunTests.NegotiationTests,
#    SluiceRunTests.DataChannelTests, SluiceRunTests.PipelineControlTests (the control API's
#    operations on a live loopback), SluiceRunTests.ViewerTrafficTests (a viewer queue's
#    overrun handler), SluiceRunTests.KeyframeRequestLimiterTests (an upstream event probe that
#    re-sends through a pad reference taken in the probe), SluiceRunTests.PayloadTypeRewriteTests
#    (a probe that answers caps queries, replaces caps events and makes buffers and buffer
#    lists writable in place), SluiceRunTests.RenditionSwitchTests
#    (a funnel whose input and output probes share state, and an upstream probe that
#    redirects keyframe requests to one input), SluiceRunTests.GOPCacheTests (buffers kept past
#    their probe and chained again into a pad from inside a probe on it),
#    SluiceRunTests.StartGateTests (buffers held past their probe and chained into a pad from
#    another thread under the pad's stream lock),
#    SluiceRunTests.ParsedSourceTests/testAnSRTSender… (parsebin's signal handlers, the stream
#    router's probes, and an SRT source torn down and made again by the supervisor; the
#    test of a paced `uri` file hangs in teardown under valgrind, not natively: open),
#    SluiceRunTests.FallbackSwitchTests (an input-selector's request pad made and released
#    while the pipeline plays, elements added and removed, probes reading running times),
#    SluiceRunTests.SharedBranchTests (a branch built on a running tee, its request pad given
#    back and its elements removed while the source plays, then built again),
#    SluiceRunTests.FanoutLanesTests (lanes built and removed on a running tee, viewers' pads
#    isolated for buffers and sticky events, a blocked viewer and a failing one),
#    SluiceRunTests.DTLSCertificateTests/testACertificateGivenToARunningTransportStillAcceptsThePeer
#    (an element's state lock held while its DTLS connection is made again),
#    SluiceRunTests.SimulcastGraphTests (simulcast layers through an rtpfunnel into webrtcbin,
#    RID header extensions made and attached per payloader, an offer made from the caps),
#    PluginABIVersion2Tests/testAVersionTwoEncodedFilterFromCRunsOnBothSides (a C plugin's
#    encoded-frame filter writing replacements into memory Sluice reserves for it),
#    EncodedFilterTests/testASendersEncodedFiltersAreSwappedWhileFramesFlow (encoded filter
#    elements unlinked, removed and replaced at an idle moment of a running encoder),
#    SluiceLoadTests.LoadMemberMediaTests (two call members' webrtcbins in one shared pipeline,
#    a pad-added handler building receive chains there, both removed while it plays),
#    SluiceLoadTests.LoadPublisherHubTests (bus errors routed to handlers by element name),
#    SluiceLoadTests.SpeakingTurnsTests/testEachMemberIsHeardInItsOwnTurnsAndSilentOtherwise (a
#    probe that puts a new buffer in the passing one's place: ProbeInfo.replaceBuffer),
#    SluiceRunTests.SendLatencyTests (a do-latency
#    handler that returns a value, latency queries and events), the audio elements written in
#    Swift (AudioFilterTests' gain set on a running element, SwiftAudioCaptureTests' tone
#    source, PluginABIVersion2Tests' C audio filter), the encoded-frame elements
#    (EncodedFilterTests' trailer round trip: caps read in set_caps, frames' memory replaced
#    in place), the Swift payloaders (VP8PayloaderTests, VP9PayloaderTests: frames borrowed
#    from the base class, packets they allocate pushed as a list), the lip-synced playout
#    (PlayoutTests: a latency message posted from a clocksync, its src pad queried for the
#    latency), the simulcast layer switch (SimulcastLayerSwitchTests: gates and byte counts
#    as pad probes on running encoders, a keyframe asked upstream on reopen), the relay's
#    TWCC preferences (RelayFeedbackTests: caps parsed from an offer), the relay's recording
#    (RelayRecordingTests: a splitmuxsink's request pads, a tee pad isolated into it, a keyframe
#    asked upstream, end-of-stream sent into a live branch), the relay's probes (RTXProberTests:
#    RTP packets read in a probe, retransmission requests sent into an rtprtxsend) and two
#    Swift-element tests
#    (a full webrtcbin loopback run) in a loopback-only network namespace, with
#    Scripts/valgrind.supp, and fails if a definitely-lost block or an invalid access
#    (read, write, free) or use of uninitialised memory involves our code: a frame of
#    Sources/GStreamer or Sources/Sluice (Swift symbols with 9GStreamer / 6Sluice /
#    6sluice) or of the C shim (sluice_*), in the access, allocation or free stack.
# 2. GStreamer's `leaks` tracer: the same tests natively, then fails if any GstObject or
#    GstMiniObject is still alive at exit. This is the check for reference cycles between
#    GObjects and Swift closures (a signal handler or pad probe that captures what owns
#    it), which valgrind cannot see: GLib's global signal-handler table keeps such a
#    cycle reachable, so it is never "definitely lost".
#
# 3. With --asan: the same tests built with AddressSanitizer in .build-asan, run with
#    LeakSanitizer and Scripts/lsan.supp; fails on any ASan or LSan report.
#
# Builds its own copy in .build-memcheck (DWARF 4: valgrind 3.19 cannot read the DWARF 5
# that clang emits for the C targets). Needs root (unshare -n), valgrind, gcc, pkg-config
# and python3. Takes under a minute plus the build. Logs stay in .build-memcheck/memcheck/.
#
# Usage: Scripts/memcheck.sh [--no-build] [--strict] [--asan]
#   --no-build  reuse the last builds
#   --strict    also fail on invalid accesses with no frame of ours
#   --asan      also run the AddressSanitizer/LeakSanitizer stage
set -euo pipefail
cd "$(dirname "$0")/.."

build=1 strict=0 asan=0
for arg in "$@"; do
  case "$arg" in
    --no-build) build=0 ;;
    --strict) strict=1 ;;
    --asan) asan=1 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "memcheck.sh: unknown argument '$arg' (see --help)" >&2; exit 2 ;;
  esac
done

for tool in valgrind unshare ip gcc pkg-config python3; do
  command -v "$tool" >/dev/null || { echo "memcheck.sh: '$tool' is missing (Scripts/install.sh installs valgrind)" >&2; exit 2; }
done
[ "$(id -u)" -eq 0 ] || { echo "memcheck.sh: needs root for 'unshare -n' (loopback-only namespace)" >&2; exit 2; }

scratch=.build-memcheck
out=$scratch/memcheck
bundle=$scratch/debug/SluicePackageTests.xctest
asan_scratch=.build-asan
asan_bundle=$asan_scratch/debug/SluicePackageTests.xctest

if [ "$build" -eq 1 ]; then
  echo "memcheck: building into $scratch"
  mkdir -p "$out"
  swift build --build-tests --scratch-path "$scratch" -Xcc -gdwarf-4 -Xswiftc -dwarf-version=4 \
    > "$out/build.txt" 2>&1 || { tail -30 "$out/build.txt"; echo "memcheck.sh: build failed" >&2; exit 2; }
  if [ "$asan" -eq 1 ]; then
    echo "memcheck: building with AddressSanitizer into $asan_scratch"
    swift build --build-tests --scratch-path "$asan_scratch" -Xswiftc -sanitize=address -Xcc -fsanitize=address \
      > "$out/asan-build.txt" 2>&1 || { tail -30 "$out/asan-build.txt"; echo "memcheck.sh: ASan build failed" >&2; exit 2; }
  fi
fi
[ -x "$bundle" ] || { echo "memcheck.sh: no test bundle at $bundle (run without --no-build)" >&2; exit 2; }
[ "$asan" -eq 0 ] || [ -x "$asan_bundle" ] || { echo "memcheck.sh: no ASan test bundle at $asan_bundle" >&2; exit 2; }

mkdir -p "$out"
rm -f "$out"/*.log "$out"/*.out
# shellcheck disable=SC2046  # pkg-config's flags are meant to split
gcc -shared -fPIC -O1 -o "$out/gst-live-objects.so" Scripts/gst-live-objects.c $(pkg-config --cflags --libs gstreamer-1.0)

gst_tests=$("$bundle" --list-tests | grep '^GStreamerTests\.' | cut -d/ -f1 | sort -u | paste -sd, -)
# WebRTC negotiation in-process, plus Swift-implemented elements (GObject subclasses whose
# state and closures live in Swift) including errors thrown inside a filter.
negotiation=SluiceRunTests.NegotiationTests,SluiceRunTests.DataChannelTests,SluiceRunTests.PipelineControlTests,SluiceRunTests.ViewerTrafficTests,SluiceRunTests.KeyframeRequestLimiterTests,SluiceRunTests.PayloadTypeRewriteTests,SluiceRunTests.RenditionSwitchTests,SluiceRunTests.GOPCacheTests,SluiceRunTests.StartGateTests,SluiceRunTests.ParsedSourceTests/testAnSRTSenderThatStopsAndComesBackIsReconnected,SluiceRunTests.RecordSinkTests/testARecordingRunsInProcess,SluiceRunTests.RecordingCaptureTests/testARecordingPlaysBackInProcess,SluiceRunTests.FallbackSwitchTests,SluiceRunTests.SharedBranchTests,SluiceRunTests.FanoutLanesTests,SluiceRunTests.DTLSCertificateTests/testACertificateGivenToARunningTransportStillAcceptsThePeer,SluiceRunTests.SwiftFilterPipelineTests/testSwiftFilterWorksByNameInsideAGstFragment,SluiceRunTests.SwiftFilterPipelineTests/testThrowingFilterUnderEachPolicy,SluiceRunTests.SendLatencyTests,SluiceLoadTests.LoadMemberMediaTests,SluiceLoadTests.LoadPublisherHubTests,SluiceLoadTests.SpeakingTurnsTests/testEachMemberIsHeardInItsOwnTurnsAndSilentOtherwise,SluiceRunTests.AudioFilterTests/testChangingTheGainWhileRunningIsHeardWithoutRenegotiating,SluiceRunTests.SwiftAudioCaptureTests/testTheToneIsHeardAtItsLevelAfterOpus,SluiceRunTests.PluginABIVersion2Tests/testAVersionTwoAudioFilterFromCLoadsAndRuns,SluiceRunTests.EncodedFilterTests/testBytesReplacedOnSendAndRestoredOnReceiveGiveBackThePicture,SluiceRunTests.VP8PayloaderTests,SluiceRunTests.SimulcastGraphTests,SluiceRunTests.PluginABIVersion2Tests/testAVersionTwoEncodedFilterFromCRunsOnBothSides,SluiceRunTests.EncodedFilterTests/testASendersEncodedFiltersAreSwappedWhileFramesFlow,SluiceRunTests.VP9PayloaderTests,SluiceRunTests.PlayoutTests,SluiceRunTests.PluginABIVersion2Tests/testTheExamplePluginsEncodedFilterRunsThroughTheCInterface,SluiceRunTests.SimulcastLayerSwitchTests,SluiceRunTests.RelayFeedbackTests,SluiceRunTests.RelayRecordingTests,SluiceRunTests.RTXProberTests
# The leaks tracer runs natively (fast), so it also covers every filter and hot-swap test.
live_objects="$gst_tests,$negotiation,SluiceRunTests.SwiftFilterPipelineTests,SluiceRunTests.HotSwapTests,SluiceRunTests.AudioFilterTests,SluiceRunTests.AudioStampPipelineTests,SluiceRunTests.EncodedFilterTests,SluiceRunTests.SEIPipelineTests,SluiceRunTests.PluginABIVersion2Tests,SluiceRunTests.AudioFilterPolicyTests"
[ -n "$gst_tests" ] || { echo "memcheck.sh: the bundle lists no GStreamerTests" >&2; exit 2; }

# GLib: plain malloc for slices, and zero freed memory so stale pointers do not look live.
export G_SLICE=always-malloc G_DEBUG=gc-friendly

in_namespace() { unshare -n sh -c 'ip link set lo up && exec "$@"' memcheck "$@"; }

valgrind_args=(--tool=memcheck --leak-check=full --show-leak-kinds=definite
               --errors-for-leak-kinds=definite --num-callers=64
               --suppressions=Scripts/valgrind.supp --gen-suppressions=all)

start=$SECONDS
for run in gstreamer:"$gst_tests" negotiation:"$negotiation"; do
  name=${run%%:*} filter=${run#*:}
  echo "memcheck: valgrind $name tests"
  in_namespace timeout 1800 valgrind "${valgrind_args[@]}" --log-file="$out/valgrind-$name.log" \
    "$bundle" "$filter" > "$out/valgrind-$name.out" 2>&1 || true
done

echo "memcheck: live GStreamer objects at exit (leaks tracer, native run)"
in_namespace env GST_TRACERS=leaks SLUICE_LEAKS_GRACE_MS=500 LD_PRELOAD="$PWD/$out/gst-live-objects.so" \
  timeout 600 "$bundle" "$live_objects" > "$out/live-objects.out" 2>&1 || true

if [ "$asan" -eq 1 ]; then
  echo "memcheck: AddressSanitizer + LeakSanitizer run"
  in_namespace env ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=0:malloc_context_size=40 \
    LSAN_OPTIONS="suppressions=$PWD/Scripts/lsan.supp" \
    timeout 900 "$asan_bundle" "$gst_tests,$negotiation" > "$out/asan.out" 2>&1 || true
fi

python3 - "$out" "$strict" "$((SECONDS - start))" "$asan" <<'PY'
import re, sys, pathlib

out, strict, seconds, asan = pathlib.Path(sys.argv[1]), sys.argv[2] == "1", sys.argv[3], sys.argv[4] == "1"
OURS = re.compile(r"(?:at|by) 0x[0-9A-Fa-f]+: (?:\S*(?:9GStreamer|6Sluice|9SluiceRun|13SluiceMeasure|10SluiceLoad|6sluice)\S*|sluice_\w+) ")
INVALID = re.compile(r"^(Invalid (read|write|free)|Mismatched free|Source and destination overlap)")
UNINIT = re.compile(r"^(Conditional jump or move depends on uninitialised|Use of uninitialised value|Syscall param .* uninitialised)")
DEFINITE = re.compile(r"^([\d,]+)(?: \(([\d,]+) direct, ([\d,]+) indirect\))? bytes in ([\d,]+) blocks are definitely lost")
SUMMARY = re.compile(r"^\s+(definitely|indirectly|possibly|suppressed)(?: lost)?: ([\d,]+) bytes in ([\d,]+) blocks")
OURS_ASAN = re.compile(r"#\d+ 0x[0-9a-f]+ in \S*(?:9GStreamer|6Sluice|9SluiceRun|13SluiceMeasure|10SluiceLoad|6sluice|sluice_)")
# Objects that live for the whole process by design.
PROCESS_WIDE = {
    "GstDtlsAgent",        # dtls plugin: the one agent with the generated certificate
    "GstElementFactory",   # registry features: element types registered (Swift filters) live for the process
    "GstTypeFindFactory",  # registry features of plugins loaded mid-run (libav's typefinders)
}
# Known library leak, reported but not failed: after a run is aborted by an element error
# (a filter with on_error: fail), GStreamer 1.22's dtls plugin keeps that run's
# GstDtlsConnection objects referenced internally although every element, webrtcbin and
# the pipeline itself are finalized. Sluice holds no reference to them.
KNOWN_LIBRARY = {"GstDtlsConnection"}

def num(s): return int(s.replace(",", "")) if s else 0

def records(path):
    """Valgrind's log as records (blank ==PID== lines separate them)."""
    recs, cur = [], []
    for line in path.read_text(errors="replace").splitlines():
        m = re.match(r"==\d+== ?(.*)$", line)
        if not m:
            continue  # --gen-suppressions blocks, debuginfo warnings
        text = m.group(1)
        if not text.strip():
            if cur: recs.append(cur)
            cur = []
        elif not re.match(r"Thread \d+", text):
            cur.append(text)
    if cur: recs.append(cur)
    return recs

failures, report = [], []
totals = {"definitely": [0, 0], "indirectly": [0, 0], "possibly": [0, 0], "suppressed": [0, 0]}
ours_lost = [0, 0]
invalid_all = invalid_ours = uninit_ours = 0
for name in ("gstreamer", "negotiation"):
    log = out / f"valgrind-{name}.log"
    if not log.exists():
        failures.append(f"valgrind {name}: no log"); continue
    text = log.read_text(errors="replace")
    if "LEAK SUMMARY" not in text and "All heap blocks were freed" not in text:
        failures.append(f"valgrind {name}: did not finish (see {log})")
    if "Process terminating with default action of signal" in text:
        failures.append(f"valgrind {name}: the test process crashed (see {log})")
    for rec in records(log):
        head, ours = rec[0], any(OURS.search(l) for l in rec)
        if INVALID.match(head):
            invalid_all += 1
            invalid_ours += ours
            if ours or strict:
                failures.append(f"valgrind {name}: {head}")
                report.append("\n".join(rec[:80]))
        elif UNINIT.match(head) and ours:
            uninit_ours += 1
            failures.append(f"valgrind {name}: {head}")
            report.append("\n".join(rec[:80]))
        elif (m := DEFINITE.match(head)) and ours:
            direct = num(m.group(2)) if m.group(2) else num(m.group(1))
            ours_lost[0] += direct; ours_lost[1] += num(m.group(4))
            failures.append(f"valgrind {name}: {head}")
            report.append("\n".join(rec[:80]))
    for line in text.splitlines():
        m = re.match(r"==\d+== (.*)$", line)
        if m and (s := SUMMARY.match(m.group(1))):
            totals[s.group(1)][0] += num(s.group(2)); totals[s.group(1)][1] += num(s.group(3))
    tests = re.findall(r"Executed (\d+) tests?, with (\d+) failures?", (out / f"valgrind-{name}.out").read_text(errors="replace"))
    if tests:
        n, f = tests[-1]
        print(f"valgrind {name}: {n} tests, {f} assertion failures (timing assertions may fail under valgrind; not counted)")

live = (out / "live-objects.out").read_text(errors="replace")
alive = re.findall(r"^gst-live-objects: (\S+) '([^']*)' refcount=(\d+)$", live, re.M)
# Top-level containers first: they are what a reference cycle usually keeps alive.
known = [a for a in alive if a[0] in KNOWN_LIBRARY]
leaked = sorted((a for a in alive if a[0] not in PROCESS_WIDE and a[0] not in KNOWN_LIBRARY),
                key=lambda a: (a[0] != "GstPipeline", not a[0].endswith("Bin"), a[0], a[1]))
# The typefinders a parsebin or urisourcebin loads keep their caps for the process: each
# is held by its GstTypeFindFactory and by the plugin's static caps (refcount 2), and the
# factories are process-wide. With typefinders loaded, at most that many caps of refcount
# 2 count as theirs (checked here: 49 caps for 173 typefinders, with every pipeline gone).
typefinders = sum(1 for a in alive if a[0] == "GstTypeFindFactory")
typefinder_caps = [a for a in leaked if a[0] == "GstCaps" and a[2] == "2"]
if typefinders and len(typefinder_caps) <= typefinders:
    leaked = [a for a in leaked if not (a[0] == "GstCaps" and a[2] == "2")]
    if typefinder_caps:
        print(f"typefinders' caps (process-wide, not failed): {len(typefinder_caps)} caps with {typefinders} typefinders loaded")
if "gst-live-objects:" not in live:
    failures.append("leaks tracer: no report (did the test process crash? see live-objects.out)")
elif "no leaks tracer" in live:
    failures.append("leaks tracer: GST_TRACERS=leaks did not load")
for t, n, r in leaked[:30]:
    failures.append(f"leaks tracer: {t} '{n}' alive at exit (refcount {r})")
if len(leaked) > 30:
    failures.append(f"leaks tracer: ... and {len(leaked) - 30} more")
if known:
    print(f"known library leak (not failed): {len(known)} x " + ", ".join(sorted({a[0] for a in known}))
          + " after a run aborted by an element error (GStreamer 1.22 dtls; see KNOWN_LIBRARY)")
tests = re.findall(r"Executed (\d+) tests?, with (\d+) failures?", live)
native = f"{tests[-1][0]} tests, {tests[-1][1]} failures" if tests else "no test summary"

asan_line = "not run (--asan)"
if asan:
    text = (out / "asan.out").read_text(errors="replace")
    errors = re.findall(r"ERROR: (AddressSanitizer|LeakSanitizer): .*", text)
    tests = re.findall(r"Executed (\d+) tests?, with (\d+) failures?", text)
    ours = bool(OURS_ASAN.search(text))
    asan_line = (f"{len(errors)} reports" + (" (ours)" if ours and errors else "")
                 + (f"; {tests[-1][0]} tests, {tests[-1][1]} failures" if tests else "; no test summary"))
    for e in errors:
        failures.append(f"asan: {e}")
    if not tests:
        failures.append("asan: the test process did not finish (see asan.out)")

d, i, p, sup = totals["definitely"], totals["indirectly"], totals["possibly"], totals["suppressed"]
print(f"memcheck ({seconds} s):")
print(f"  definitely lost: {d[0]} bytes in {d[1]} blocks; ours: {ours_lost[0]} bytes in {ours_lost[1]} blocks"
      f" (suppressed as library-internal: {sup[0]} bytes in {sup[1]} blocks)")
print(f"  indirectly lost: {i[0]} bytes in {i[1]} blocks; possibly lost: {p[0]} bytes in {p[1]} blocks (not checked)")
print(f"  invalid reads/writes/frees: {invalid_all} (ours: {invalid_ours}); uninitialised uses in our code: {uninit_ours}")
print(f"  GStreamer objects alive at exit: {len(leaked)} (+{len(alive) - len(leaked)} process-wide); native run: {native}")
print(f"  AddressSanitizer/LeakSanitizer: {asan_line}")
if failures:
    print("\n".join(report))
    print("memcheck: FAILED")
    for f in failures: print("  - " + f)
    print(f"logs: {out}/")
    sys.exit(1)
print("memcheck: OK")
PY

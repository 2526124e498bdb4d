import Logging
import SluiceRun

extension GraphBuilder {
    /// Waits (at most 3 s) until every send branch's caps have reached webrtcbin, before an
    /// offer. An offer's a=ssrc lines come from those caps; made before they arrive, webrtcbin
    /// signals no SSRC (or SSRCs of its own that the packets do not carry), and a peer that
    /// maps streams by the offer's SSRCs drops them: webrtcbin 1.22's packets carry no MID
    /// extension to fall back on. Janus ("Unknown SSRC"): seen for 1 VideoRoom publisher of 30
    /// offered at once without this wait, 0 of 30 with it, and for every EchoTest video stream
    /// (video starts later than audio). Chromium: the stream whose section had no SSRC never
    /// showed in its statistics.
    package func waitForSendCaps(logger: Logger) async {
        let inputs = Array(webrtcInputs.values)
        let until = ContinuousClock.now + .seconds(3)
        while inputs.contains(where: { $0.currentCaps == nil }), ContinuousClock.now < until {
            try? await Task.sleep(for: .milliseconds(20))
        }
        if inputs.contains(where: { $0.currentCaps == nil }) {
            logger.warning(
                "a send branch had not started after 3 s; offering anyway, but a peer that maps streams by the offer's SSRCs (Janus, Chromium) may drop its stream"
            )
        }
    }
}

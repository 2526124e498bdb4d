import Foundation
import GStreamer
import Synchronization

/// Work done once per process on a thread of its own, started by the first `begin()`:
/// loading what a run will need before it needs it, off the path to the first frame.
package final class BackgroundOnce: Sendable {
    private let started = Atomic<Bool>(false)
    private let finish = Mutex<ContinuousClock.Instant?>(nil)
    private let name: String
    private let work: @Sendable () -> Void

    package init(name: String, _ work: @escaping @Sendable () -> Void) {
        self.name = name; self.work = work
    }

    /// Starts the work unless it has been started before; returns at once.
    package func begin() {
        guard started.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged else { return }
        let thread = Thread { [self] in
            work()
            finish.withLock { $0 = .now }
        }
        thread.name = name
        thread.start()
    }

    /// When the work finished (nil: not yet, or never started).
    package var finishedAt: ContinuousClock.Instant? { finish.withLock { $0 } }
}

/// Takes GStreamer's one-time DTLS key generation off the path to the first frame.
///
/// Every `dtlssrtpdec` starts with GStreamer 1.22's process-wide generated certificate (an
/// RSA-2048 key made once, on the first element, in `gst_dtls_dec_init`), even when Sluice
/// then gives it its own ECDSA certificate. The first offer or answer of a process creates
/// the first one and waits for that key: 25–500 ms here (`openssl genrsa 2048` varies as
/// much), the largest share of the time to first frame on loopback. `begin()` makes that
/// element on a thread of its own as soon as a command, run or server starts, so the key
/// is made while the file loads and the pipeline is built; a server makes it before its
/// first viewer.
public enum DTLSWarmUp {
    private static let once = BackgroundOnce(name: "sluice-dtls-warmup") {
        // libnice's plugin first (webrtcbin's transports need it as soon as the offer is
        // made), then the key. The elements are dropped at once: what stays is the loaded
        // plugins and GStreamer's cached DTLS agent.
        _ = try? Element.make("nicesrc")
        _ = try? Element.make("dtlssrtpdec")
        // Sluice's own certificate (ECDSA, made on first use) too.
        _ = DTLSCertificate.processDefault
    }

    /// Starts the warm-up once per process; later calls return at once.
    public static func begin() { once.begin() }

    /// When it finished (nil: not yet).
    public static var finishedAt: ContinuousClock.Instant? { once.finishedAt }
}

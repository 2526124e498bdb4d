import GStreamer
import Synchronization
import SluiceRun

// A transport kind that is not built in, written the way a new kind is: this one file (its
// name, keys, settings, section rules, `prepare` and session) plus its registry line
// (`TransportRegistry.register(EchoTransport())` in the test). It encodes the send section
// and discards it, and its session reports the file's greeting in the run's summary.

extension TransportKind {
    static let echo = TransportKind(rawValue: "echo")
}

/// `kind: echo`'s own key.
struct EchoSettings: KindSettings, Equatable {
    var greeting: String
}

struct EchoTransport: Transport {
    let kind = TransportKind.echo
    let keys = ["greeting"]
    let sections = TransportSections(receive: .forbidden("echoes nothing back: remove receive"))
    let abilities: TransportAbilities = []

    func decodeSettings(_ map: [SpecEntry], at location: SourceLocation, with decoder: inout SpecDecoder) -> (any KindSettings)? {
        guard let entry = map.entry("greeting") else {
            decoder.fail("transport kind 'echo' needs a 'greeting'", at: location)
            return nil
        }
        return decoder.nonEmptyText(entry).map(EchoSettings.init)
    }

    func prepare(_ c: TransportContext) async throws(RunError) -> TransportSetup {
        try c.buildSendBranches(into: nil)
        let greeting = c.spec.transport.settings(as: EchoSettings.self)?.greeting ?? ""
        return TransportSetup(session: EchoSession(greeting: greeting))
    }
}

/// Says the greeting in the summary; counts how often it was ended.
final class EchoSession: RemoteSession {
    let greeting: String
    static let ended = Atomic<Int>(0)
    init(greeting: String) { self.greeting = greeting }

    func negotiate(stop: StopFlag, deadline: ContinuousClock.Instant?) async throws(RunError) -> Bool { true }
    func tick() async throws(RunError) -> String? { nil }
    func end() async { Self.ended.add(1, ordering: .relaxed) }
    var report: RunSummary.Session? { RunSummary.Session(role: "echo", id: greeting) }
}

import GStreamer
import Synchronization

/// A branch of a long-lived pipeline that several viewers share and none owns: built when
/// the first of them needs it, removed when the last of them leaves. `passthrough: auto`'s
/// decoder and encoder are one: a camera's stream encoded again for viewers whose decoders
/// cannot take its profile costs CPU only while such a viewer watches.
///
/// Building and removing happen under one lock, so a viewer arriving while the branch is
/// being removed waits, then gets a new one.
package final class SharedBranch: Sendable {
    /// A built branch: the element users link to, every element it added, and the request
    /// pad it takes its input from.
    package struct Built: Sendable {
        package var output: Element
        package var elements: [Element]
        package var input: (tee: Element, pad: Pad)
    }

    private struct State {
        var built: Built?
        var users = 0
        var builds = 0
    }

    private let state = Mutex<State>(State())
    private let pipeline: Pipeline
    private let build: @Sendable () throws(RunError) -> Built
    private let removed: @Sendable () -> Void

    /// A branch of `pipeline` that `build` makes (linked and playing) when first needed;
    /// `removed` is called each time the last user has left and it is gone.
    package init(in pipeline: Pipeline, build: @escaping @Sendable () throws(RunError) -> Built, removed: @escaping @Sendable () -> Void = {}) {
        self.pipeline = pipeline; self.build = build; self.removed = removed
    }

    /// The branch's output for one more user, built now if no one uses it. Each successful
    /// call must be matched by one `release()`.
    package func acquire() throws(RunError) -> Element {
        try state.withLock { (s: inout State) throws(RunError) -> Element in
            if let built = s.built {
                s.users += 1
                return built.output
            }
            let built = try build()
            s.built = built
            s.users = 1
            s.builds += 1
            return built.output
        }
    }

    /// One user has left; the last one's leaving unlinks the branch from its input, stops
    /// its elements and removes them from the pipeline.
    package func release() {
        let gone = state.withLock { (s: inout State) -> Bool in
            guard s.users > 0 else { return false }
            s.users -= 1
            guard s.users == 0, let built = s.built else { return false }
            s.built = nil
            pipeline.removeBranch(built.elements, teePads: [built.input])
            return true
        }
        if gone { removed() }
    }

    /// Whether the branch exists now.
    package var isBuilt: Bool { state.withLock { $0.built != nil } }
    /// Times it has been built (each first user after none).
    package var builds: Int { state.withLock { $0.builds } }
    /// Users holding it now.
    package var users: Int { state.withLock { $0.users } }
}

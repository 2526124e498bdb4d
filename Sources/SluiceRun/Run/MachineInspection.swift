import GStreamer

/// What this machine's GStreamer can do for Sluice: per codec, whether each element Sluice
/// would use is installed; and the encoders, decoders, sources and sinks it has.
public struct MachineInspection: Sendable, Codable {
    /// Whether one codec can be sent and received: its default encoder, decoder, payloader, depayloader and parser.
    public struct CodecSupport: Sendable, Codable {
        /// The codec's name (`vp8`, `vp9`, `h264`, `opus`).
        public var codec: String
        /// element name → installed?
        public var elements: [String: Bool]
        /// Whether every element the codec needs is installed.
        public var usable: Bool
        /// How to get what is missing.
        public var hints: [String]
    }
    /// One installed GStreamer element factory.
    public struct Entry: Sendable, Codable {
        /// The factory name (e.g. `vp8enc`).
        public var name: String
        /// The factory's klass (e.g. `Codec/Encoder/Video`).
        public var klass: String
        /// The factory's one-line description.
        public var description: String
    }

    /// One Swift filter or source registered in this program.
    public struct SwiftFilter: Sendable, Codable {
        /// The name pipeline files use.
        public var name: String
        /// `filter`, `analysis` (a filter that does not change the picture) or `source`.
        public var kind: String
        /// One line describing it.
        public var summary: String
        /// The raw formats it handles or produces (e.g. `I420`, `F32LE`), or for an encoded filter its codecs (`vp8`).
        public var formats: [String]
        /// Its settings, each as `name (expected type)`.
        public var settings: [String]
        /// `built-in` or the plugin library's path.
        public var origin: String
    }

    /// The version of GStreamer loaded.
    public var gstreamer_version: String
    /// Swift filters and sources registered in this program (built in and plugins).
    public var swift: [SwiftFilter] = []
    /// For each codec Sluice knows, whether its elements are installed.
    public var codecs: [CodecSupport]
    /// For each element WebRTC needs (`webrtcbin`, `nicesrc`, `dtlssrtpenc`, …), whether it is installed.
    public var webrtc: [String: Bool]
    /// Installed audio and video encoders.
    public var encoders: [Entry]
    /// Installed audio and video decoders.
    public var decoders: [Entry]
    /// Installed audio and video sources.
    public var sources: [Entry]
    /// Installed audio and video sinks.
    public var sinks: [Entry]

    /// Reads the registry now.
    public static func current() -> MachineInspection {
        let factories = Registry.factories()
        let installed = Set(factories.map(\.name))
        let codecs = Codec.allCases.map { codec -> CodecSupport in
            var names = [
                DefaultElements.encoder(for: codec), DefaultElements.decoder(for: codec),
                DefaultElements.payloader(for: codec), DefaultElements.depayloader(for: codec)
            ]
            if let p = DefaultElements.parser(for: codec) { names.append(p) }
            let elements = Dictionary(uniqueKeysWithValues: names.map { ($0, installed.contains($0)) })
            let missing = names.filter { !installed.contains($0) }
            return CodecSupport(
                codec: codec.rawValue, elements: elements, usable: missing.isEmpty,
                hints: missing.map(KnownElements.missingHint(for:)))
        }
        let webrtcNames = ["webrtcbin", "nicesrc", "nicesink", "dtlssrtpenc", "dtlssrtpdec", "srtpenc", "srtpdec", "rtpbin"]
        func pick(_ test: (String) -> Bool) -> [Entry] {
            factories.filter { test($0.klass) }.map { Entry(name: $0.name, klass: $0.klass, description: $0.description) }
        }
        let media: (String) -> Bool = { $0.contains("Video") || $0.contains("Audio") }
        let registry = FilterRegistry.shared
        let swift =
            registry.allFilters.map {
                SwiftFilter(
                    name: $0.name, kind: $0.modifiesPixels ? "filter" : "analysis", summary: $0.summary,
                    formats: $0.formats.map(\.rawValue), settings: $0.parameters.map { "\($0.name) (\($0.kind.expected))" },
                    origin: $0.origin)
            }
            + registry.allAudioFilters.map {
                SwiftFilter(
                    name: $0.name, kind: $0.modifiesSamples ? "audio filter" : "audio analysis", summary: $0.summary,
                    formats: $0.formats.map(\.rawValue), settings: $0.parameters.map { "\($0.name) (\($0.kind.expected))" },
                    origin: $0.origin)
            }
            + registry.allEncodedFilters.map {
                SwiftFilter(
                    name: $0.name, kind: "encoded filter", summary: $0.summary, formats: $0.codecs.map(\.rawValue),
                    settings: $0.parameters.map { "\($0.name) (\($0.kind.expected))" }, origin: $0.origin)
            }
            + registry.allAudioSources.map {
                SwiftFilter(
                    name: $0.name, kind: "audio source", summary: $0.summary, formats: $0.formats.map(\.rawValue),
                    settings: $0.parameters.map { "\($0.name) (\($0.kind.expected))" }, origin: $0.origin)
            }
            + registry.allSources.map {
                SwiftFilter(
                    name: $0.name, kind: "source", summary: $0.summary, formats: $0.formats.map(\.rawValue),
                    settings: $0.parameters.map { "\($0.name) (\($0.kind.expected))" }, origin: $0.origin)
            }
        return MachineInspection(
            gstreamer_version: Gst.version, swift: swift,
            codecs: codecs,
            webrtc: Dictionary(uniqueKeysWithValues: webrtcNames.map { ($0, installed.contains($0)) }),
            encoders: pick { $0.contains("Encoder") && media($0) },
            decoders: pick { $0.contains("Decoder") && media($0) },
            sources: pick { $0.contains("Source") && media($0) },
            sinks: pick { $0.contains("Sink") && media($0) })
    }

    /// Human-readable report.
    public var text: String {
        var out = ["GStreamer \(gstreamer_version)", "", "Codecs Sluice can send and receive:"]
        for c in codecs {
            let detail = c.elements.keys.sorted().map { "\($0) \((c.elements[$0] ?? false) ? "yes" : "MISSING")" }.joined(separator: ", ")
            out.append("  \(c.codec.padding(toLength: 5, withPad: " ", startingAt: 0)) \(c.usable ? "ok     " : "missing") \(detail)")
            for h in c.hints { out.append("        \(h)") }
        }
        out.append("")
        out.append("Swift filters and sources (use as `- filter: NAME` or `capture: {kind: swift, name: NAME}`):")
        for f in swift {
            out.append(
                "  \(f.name.padding(toLength: 16, withPad: " ", startingAt: 0)) \(f.kind.padding(toLength: 8, withPad: " ", startingAt: 0)) \(f.summary)")
            if !f.settings.isEmpty { out.append("  \(String(repeating: " ", count: 26))settings: \(f.settings.joined(separator: ", "))") }
        }
        out.append("")
        out.append("WebRTC: " + webrtc.keys.sorted().map { "\($0) \((webrtc[$0] ?? false) ? "yes" : "MISSING")" }.joined(separator: ", "))
        for (title, list) in [("Encoders", encoders), ("Decoders", decoders), ("Sources", sources), ("Sinks", sinks)] {
            out.append("")
            out.append("\(title) (\(list.count)):")
            for e in list { out.append("  \(e.name.padding(toLength: 24, withPad: " ", startingAt: 0)) \(e.klass)") }
        }
        return out.joined(separator: "\n")
    }
}

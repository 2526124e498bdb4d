import Foundation
import GStreamer
import SluiceBuiltInPlugins
import SluiceFilterKit
import SluiceRun
import SluiceTransports
import XCTest

/// A load group's own `encoded_filters:` (`faults` for part of a crowd, another key): read
/// by medium, checked against the codecs the file sends or receives, each mistake at its
/// FILE:LINE:COL.
final class LoadGroupEncodedFiltersTests: XCTestCase {
    private static let registered: Bool = {
        for f in BuiltInPlugins.encodedFilters { try? FilterRegistry.shared.register(EncodedFilterFactory(f)) }
        return true
    }()

    override func setUp() {
        _ = Self.registered
        SluiceTransports.registerBuiltIns()
    }

    private func load(_ yaml: String) throws -> PipelineSpec {
        try PipelineLoader(environment: [:], catalog: GStreamerCatalog(), filters: FilterRegistry.shared).load(yaml: yaml, file: "a.yaml")
    }

    private func error(_ yaml: String, line: UInt = #line) -> String { refusal(line: line) { try load(yaml) } }

    private static let viewers = """
        transport: {kind: whep, endpoint: "http://127.0.0.1:8443/whep/x"}
        receive:
          video: {sink: stats}
        load:
          clients: 4
          groups:
            - {name: clean, share: 50%}

        """

    func testAGroupsFiltersAreReadByMedium() throws {
        let spec = try load(
            Self.viewers + """
                    - name: faulty
                      share: 50%
                      encoded_filters:
                        video:
                          - filter: faults
                            drop_deltas_at: 2
                            drop_deltas_for: 3
                """)
        let groups = try XCTUnwrap(spec.load?.groups)
        XCTAssertEqual(groups.map(\.name), ["clean", "faulty"])
        XCTAssertEqual(groups[0].encodedFilters.count, 0)
        XCTAssertEqual(groups[1].encodedFilters[.video]?.count, 1)
        guard case .swift(let name, let settings, _)? = groups[1].encodedFilters[.video]?.first?.kind else {
            return XCTFail("\(groups[1].encodedFilters)")
        }
        XCTAssertEqual(name, "faults")
        XCTAssertEqual(settings.map(\.name).sorted(), ["drop_deltas_at", "drop_deltas_for"])
    }

    func testMistakesAreReportedWhereTheyAre() {
        // A medium the file neither sends nor receives.
        let audio = error(Self.viewers + "    - {name: b, share: 50%, encoded_filters: {audio: [{filter: faults, drop_every: 2}]}}\n")
        XCTAssertTrue(audio.hasPrefix("a.yaml:8:47: load group 'b' has encoded filters for audio, but the file neither sends nor receives audio"), audio)
        // A codec the filter does not handle: the viewers accept every video codec, and `sei` only H.264.
        let vp9 = error(Self.viewers + "    - {name: b, share: 50%, encoded_filters: {video: [{filter: sei}]}}\n")
        XCTAssertTrue(vp9.contains("a.yaml:8:56: 'sei' handles h264, not vp8, vp9 (load group 'b': receive.video accepts"), vp9)
        XCTAssertTrue(vp9.contains("list the codecs it handles in `receive.video.codecs`"), vp9)
        // A key that is no medium.
        let key = error(Self.viewers + "    - {name: b, share: 50%, encoded_filters: {vidoe: [{filter: faults}]}}\n")
        XCTAssertTrue(key.hasPrefix("a.yaml:8:47:") && key.contains("vidoe") && key.contains("video"), key)
        // A filter of raw frames in an encoded list.
        let raw = error(Self.viewers + "    - {name: b, share: 50%, encoded_filters: {video: [{filter: pixelate}]}}\n")
        XCTAssertTrue(raw.hasPrefix("a.yaml:8:"), raw)
    }

    func testAPublishersGroupIsCheckedAgainstTheEncoder() {
        let yaml = """
            transport: {kind: whip, endpoint: "http://127.0.0.1:8443/whip/x"}
            send:
              video: {capture: {kind: test}, encode: {codec: vp9}}
            load:
              groups:
                - {name: a, share: 50%}
                - {name: b, share: 50%, encoded_filters: {video: [{filter: sei}]}}
            """
        let e = error(yaml)
        XCTAssertTrue(e.contains("'sei' handles h264, not vp9 (load group 'b': send.video encodes vp9); encode with a codec it handles"), e)
    }
}

import GStreamer
import XCTest
@testable import SluiceRun

/// The builder skips preset properties an element lacks (for other GStreamer versions), so
/// these tests are what catches a misspelt preset: every one must exist on 1.22 and parse.
final class EncoderPresetsTests: XCTestCase {
    func testEveryRealtimePresetPropertyExistsAndParses() throws {
        for codec in Codec.allCases {
            for element in [DefaultElements.encoder(for: codec)] + (codec == .h264 ? ["openh264enc"] : []) {
                let encode = EncodeSpec(codec: codec, bitrateKbps: codec == .opus ? 64 : 2000, preset: .realtime)
                let e = try Element.make(element)
                for (name, value) in EncoderPresets.encoderProperties(encode, element: element, fps: 30) {
                    XCTAssertTrue(e.hasProperty(name), "\(element) has no property \(name)")
                    XCTAssertNoThrow(try e.set(name, fromString: value), "\(element).\(name)=\(value)")
                }
            }
            let pay = try Element.make(DefaultElements.payloader(for: codec))
            for (name, value) in EncoderPresets.payloaderProperties(for: codec) {
                XCTAssertTrue(pay.hasProperty(name), "\(codec) payloader has no property \(name)")
                XCTAssertNoThrow(try pay.set(name, fromString: value))
            }
            XCTAssertNoThrow(try Caps(EncoderPresets.rtpCaps(for: codec)))
        }
    }

    func testRealtimeX264AvoidsLatencyTraps() throws {
        let props = Dictionary(
            uniqueKeysWithValues: EncoderPresets.encoderProperties(
                EncodeSpec(codec: .h264, bitrateKbps: 2000, preset: .realtime), element: "x264enc", fps: 30))
        XCTAssertEqual(props["tune"], "zerolatency")
        XCTAssertEqual(props["speed-preset"], "ultrafast")
        XCTAssertEqual(props["bframes"], "0")
        XCTAssertEqual(props["key-int-max"], "60", "two seconds at 30 fps by default")
        XCTAssertEqual(props["aud"], "false", "no 2-byte delimiter packets (Pion drops them)")
        XCTAssertEqual(EncoderPresets.encodedCaps(for: .h264, preset: .realtime)?.contains("constrained-baseline"), true)
    }

    func testRealtimeVP8IsFastAndResilient() {
        let props = Dictionary(
            uniqueKeysWithValues: EncoderPresets.encoderProperties(
                EncodeSpec(codec: .vp8, bitrateKbps: 1500, preset: .realtime), element: "vp8enc", fps: 30))
        XCTAssertEqual(props["deadline"], "1")
        XCTAssertEqual(props["end-usage"], "cbr")
        XCTAssertEqual(props["lag-in-frames"], "0")
        XCTAssertEqual(props["error-resilient"], "default")
        XCTAssertEqual(props["target-bitrate"], "1500000")
        let pay = Dictionary(uniqueKeysWithValues: EncoderPresets.payloaderProperties(for: .vp8))
        XCTAssertEqual(pay["mtu"], "1200")
        XCTAssertEqual(pay["picture-id-mode"], "15-bit")
    }

    func testDefaultPresetLeavesEncoderDefaults() {
        let props = EncoderPresets.encoderProperties(
            EncodeSpec(codec: .h264, bitrateKbps: 2000, preset: .default),
            element: "x264enc", fps: 30)
        XCTAssertEqual(Set(props.map(\.0)), ["bitrate", "key-int-max", "aud"], "aud is about RTP, not quality")
    }
}

import SluiceSignalling
import XCTest

final class WHEPLayerSelectionTests: XCTestCase {
    private func parse(_ body: String, type: String? = "application/json") -> Result<WHEPLayerSelection, WHIP.HTTPError> {
        WHEPLayerSelection.parse(contentType: type, body: body)
    }

    func testARidOrAnEncodingIdHoldsTheViewerOnThatLayer() {
        XCTAssertEqual(parse(#"{"mediaId": "0", "rid": "l"}"#), .success(.layer("l")))
        XCTAssertEqual(parse(#"{"mediaId":"1","encodingId":"h"}"#, type: "application/json; charset=utf-8"), .success(.layer("h")))
    }

    func testNoRidGoesBackToTheServersChoice() {
        XCTAssertEqual(parse(#"{"mediaId": "0"}"#), .success(.automatic))
        XCTAssertEqual(parse("{}"), .success(.automatic))
    }

    func testBadSelectionsAreRefusedWithTheirStatus() {
        let cases: [(String, String?, Int)] = [
            (#"{"rid": "l"}"#, "application/sdp", 415), (#"{"rid": "l"}"#, nil, 415),
            ("not json", "application/json", 400), (#"["l"]"#, "application/json", 400),
            (#"{"rid": 3}"#, "application/json", 400), (#"{"rid": ""}"#, "application/json", 400),
            ("{\"rid\": \"\(String(repeating: "x", count: 65))\"}", "application/json", 400),
            (#"{"spatialLayerId": 1}"#, "application/json", 400),
            ("{\"rid\": \"l\", \"pad\": \"\(String(repeating: " ", count: 5000))\"}", "application/json", 400)
        ]
        for (body, type, status) in cases {
            guard case .failure(let e) = parse(body, type: type) else { return XCTFail("accepted \(body.prefix(40)) as \(type ?? "nothing")") }
            XCTAssertEqual(e.status, status, "\(body.prefix(40)): \(e.message)")
            XCTAssertFalse(e.message.isEmpty)
        }
    }

    func testTheLinkNamesTheExtensionsRelation() {
        XCTAssertEqual(WHEPLayerSelection.link("/whep/live/abc/layer"), #"</whep/live/abc/layer>; rel="urn:ietf:params:whep:ext:core:layer""#)
    }
}

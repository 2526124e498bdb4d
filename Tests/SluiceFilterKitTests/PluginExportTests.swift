import CSluicePluginABI
import SluiceFilterKit
import XCTest

/// The tables a Swift plugin's entry points return are built once per plugin name: each load
/// of the library calls the entry point again, and a table built per call was lost each time.
final class PluginExportTests: XCTestCase {
    func testEachTableIsBuiltOnceAndHandedOutAgain() {
        let v2 = SluicePluginExport.tableV2(name: "export-test", filters: [Vignette.self], audioFilters: [])
        XCTAssertEqual(SluicePluginExport.tableV2(name: "export-test", filters: [Vignette.self], audioFilters: []), v2)
        let v1 = SluicePluginExport.table(name: "export-test", filters: [Vignette.self])
        XCTAssertEqual(SluicePluginExport.table(name: "export-test", filters: [Vignette.self]), v1)
        let table = v2.assumingMemoryBound(to: SluicePluginV2.self).pointee
        XCTAssertEqual(table.abi_version, SluicePluginExport.abiVersion2)
        XCTAssertEqual(table.video_filter_count, 1)
        XCTAssertEqual(table.video_filters, v1.assumingMemoryBound(to: SluicePluginV1.self).pointee.filters, "version 2 shares version 1's descriptors")
        XCTAssertEqual(String(cString: table.plugin_name), "export-test")
    }
}

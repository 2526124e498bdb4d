import SluiceFilterKit

/// The entry point Sluice looks up after loading the library.
@_cdecl("sluice_plugin_v1")
public func sluicePluginV1() -> UnsafeRawPointer {
    SluicePluginExport.table(name: "example", filters: [Sepia.self])
}

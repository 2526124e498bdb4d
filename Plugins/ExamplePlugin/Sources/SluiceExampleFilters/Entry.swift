import SluiceFilterKit

/// The entry point Sluices with plugin ABI version 2 look up first: video, audio and encoded-frame filters.
@_cdecl("sluice_plugin_v2")
public func sluicePluginV2() -> UnsafeRawPointer {
    SluicePluginExport.tableV2(name: "example", filters: [Sepia.self], audioFilters: [Tremolo.self], encodedFilters: [Scramble.self])
}

/// The entry point of version 1, which older Sluices look up: the video filter only.
@_cdecl("sluice_plugin_v1")
public func sluicePluginV1() -> UnsafeRawPointer {
    SluicePluginExport.table(name: "example", filters: [Sepia.self])
}

// `import Sluice` gives a program the whole library, module by module (docs/architecture.md
// draws the graph): the file model, graph and run (`SluiceRun`), measuring (`SluiceMeasure`),
// load (`SluiceLoad`) and the transport kinds that speak to other services
// (`SluiceTransports`: call `SluiceTransports.registerBuiltIns()` once at start). A program
// that needs less imports less.
@_exported import SluiceLoad
@_exported import SluiceMeasure
@_exported import SluiceRun
@_exported import SluiceTransports

// `import Sluice` gives a program the whole library, module by module (docs/architecture.md
// draws the graph): the file model, graph and run (`SluiceRun`), measuring (`SluiceMeasure`)
// and load (`SluiceLoad`). A program that needs less imports less.
@_exported import SluiceLoad
@_exported import SluiceMeasure
@_exported import SluiceRun

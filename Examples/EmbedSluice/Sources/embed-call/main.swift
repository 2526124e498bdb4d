import EmbedKinds
import Foundation
import SluiceRun

// embed-call offer SOCKET SECONDS            sends a solid colour to whoever answers
// embed-call answer SOCKET SECONDS FRAMES    answers, and keeps the last frames in FRAMES
// The last line printed is the run's summary as JSON.
let arguments = CommandLine.arguments
guard arguments.count >= 4, let seconds = Double(arguments[3]),
    arguments[1] == "offer" || (arguments[1] == "answer" && arguments.count == 5)
else {
    FileHandle.standardError.write(Data("usage: embed-call offer SOCKET SECONDS | embed-call answer SOCKET SECONDS FRAMES\n".utf8))
    exit(2)
}
EmbedKinds.register()
let code =
    arguments[1] == "offer"
    ? CallPipeline.sender(socket: arguments[2], color: 0x2080e0) : CallPipeline.receiver(socket: arguments[2], frames: arguments[4])
do {
    let spec = try PipelineLoader().load(code)
    let summary = try await PipelineRun(spec: spec).run(options: RunOptions(duration: seconds)) { live in print(live.line) }
    print(summary.text)
    print(String(decoding: try JSONEncoder().encode(summary), as: UTF8.self))
} catch let e as PipelineFileError {
    FileHandle.standardError.write(Data("\(e)\n".utf8))
    exit(2)
} catch {
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
    exit(1)
}

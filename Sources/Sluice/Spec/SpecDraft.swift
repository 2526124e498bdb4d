/// A file's sections as decoded, before the rules that involve several of them: what a
/// transport kind's `complete` reads and may add to (loopback's default receive branches).
struct SpecDraft {
    var transport: TransportSpec
    var send: SpecDecoder.Side<SendBranchSpec>?
    var receive: SpecDecoder.Side<ReceiveBranchSpec>?
    /// The receive branches the file will have (a kind may add defaults).
    var receiveVideo: ReceiveBranchSpec?
    var receiveAudio: ReceiveBranchSpec?
    /// Line 1, column 1 of the file: where a problem of the whole file is reported.
    var fileStart: SourceLocation

    init(
        transport: TransportSpec, send: SpecDecoder.Side<SendBranchSpec>?, receive: SpecDecoder.Side<ReceiveBranchSpec>?,
        fileStart: SourceLocation
    ) {
        self.transport = transport; self.send = send; self.receive = receive
        receiveVideo = receive?.video; receiveAudio = receive?.audio
        self.fileStart = fileStart
    }

    /// Which media the send section names (even where its branch had errors).
    var sendPresent: [MediaKind: SourceLocation] { send?.present ?? [:] }
    /// Which media the receive section names.
    var receivePresent: [MediaKind: SourceLocation] { receive?.present ?? [:] }
    /// The receive branches, video first.
    var receiveBranches: [ReceiveBranchSpec] { [receiveVideo, receiveAudio].compactMap { $0 } }
}

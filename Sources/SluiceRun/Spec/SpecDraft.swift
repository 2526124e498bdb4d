/// A file's sections as decoded, before the rules that involve several of them: what a
/// transport kind's `complete` reads and may add to (loopback's default receive branches).
public struct SpecDraft {
    /// The decoded transport section.
    public var transport: TransportSpec
    package var send: SpecDecoder.Side<SendBranchSpec>?
    package var receive: SpecDecoder.Side<ReceiveBranchSpec>?
    /// The receive branches the file will have (a kind may add defaults).
    public var receiveVideo: ReceiveBranchSpec?
    /// The receive audio branch the file will have.
    public var receiveAudio: ReceiveBranchSpec?
    /// Line 1, column 1 of the file: where a problem of the whole file is reported.
    public var fileStart: SourceLocation

    package init(
        transport: TransportSpec, send: SpecDecoder.Side<SendBranchSpec>?, receive: SpecDecoder.Side<ReceiveBranchSpec>?,
        fileStart: SourceLocation
    ) {
        self.transport = transport; self.send = send; self.receive = receive
        receiveVideo = receive?.video; receiveAudio = receive?.audio
        self.fileStart = fileStart
    }

    /// Which media the send section names (even where its branch had errors).
    public var sendPresent: [MediaKind: SourceLocation] { send?.present ?? [:] }
    /// Which media the receive section names.
    public var receivePresent: [MediaKind: SourceLocation] { receive?.present ?? [:] }
    /// The receive branches, video first.
    public var receiveBranches: [ReceiveBranchSpec] { [receiveVideo, receiveAudio].compactMap { $0 } }
}

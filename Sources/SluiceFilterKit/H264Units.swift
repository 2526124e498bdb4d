/// H.264's NAL units as encoded filters see them: Annex B (start codes: the encoder's output,
/// on the send side) and AVC (4-byte big-endian lengths: what the decoder takes, on the
/// receive side); where the first slice starts; and the emulation prevention that keeps start
/// codes out of a NAL unit's payload (H.264 7.4.1).
public enum H264Units {
    /// The index of the first slice NAL unit's header byte (types 1 and 5), found after the
    /// start codes; nil if the frame does not begin with a start code or has no slice.
    public static func firstSliceHeader(_ b: UnsafeRawBufferPointer) -> Int? {
        guard b.count >= 4, b[0] == 0, b[1] == 0, b[2] == 1 || (b[2] == 0 && b[3] == 1) else { return nil }
        var i = 0
        while i + 3 <= b.count {
            if b[i] == 0, b[i + 1] == 0, b[i + 2] == 1 {
                let header = i + 3
                guard header < b.count else { return nil }
                let type = b[header] & 0x1F
                if type == 1 || type == 5 { return header }
                i = header
            } else {
                i += 1
            }
        }
        return nil
    }

    /// Emulation prevention (H.264 7.4.1): a 0x03 before any byte ≤ 3 that follows two zeros.
    /// One pass over the bytes into a buffer sized for the worst case (a 0x03 every third
    /// byte), without growing an array a byte at a time.
    public static func escape(_ data: [UInt8]) -> [UInt8] {
        data.withUnsafeBufferPointer { input in
            [UInt8](unsafeUninitializedCapacity: input.count + input.count / 2 + 1) { out, written in
                var n = 0, zeros = 0
                for byte in input {
                    if byte <= 3, zeros >= 2 {
                        out[n] = 3
                        n += 1
                        zeros = 0
                    }
                    out[n] = byte
                    n += 1
                    zeros = byte == 0 ? zeros + 1 : 0
                }
                written = n
            }
        }
    }

    /// Removes emulation prevention: every 0x03 after two zeros, as LiveKit's `parseRbsp` does.
    public static func unescape(_ data: [UInt8]) -> [UInt8] {
        data.withUnsafeBufferPointer { input in
            [UInt8](unsafeUninitializedCapacity: input.count) { out, written in
                var i = 0, n = 0
                let count = input.count
                while i < count {
                    if i + 2 < count, input[i] == 0, input[i + 1] == 0, input[i + 2] == 3 {
                        out[n] = 0
                        out[n + 1] = 0
                        n += 2
                        i += 3
                    } else {
                        out[n] = input[i]
                        n += 1
                        i += 1
                    }
                }
                written = n
            }
        }
    }

    /// Where each NAL unit of an Annex B access unit lies (after its start code).
    public static func annexBUnits(_ b: [UInt8]) -> [Range<Int>] {
        var starts: [(code: Int, unit: Int)] = []
        var i = 0
        while i + 2 < b.count {
            if b[i] == 0, b[i + 1] == 0, b[i + 2] == 1 {
                starts.append((i > 0 && b[i - 1] == 0 ? i - 1 : i, i + 3))
                i += 3
            } else {
                i += 1
            }
        }
        return starts.indices.map { k in starts[k].unit..<(k + 1 < starts.count ? starts[k + 1].code : b.count) }
    }

    /// Where each NAL unit of an AVC access unit lies, up to the first length that overruns
    /// the bytes (a truncated frame still gives its complete units).
    public static func avcUnits(_ b: [UInt8]) -> [Range<Int>] {
        var units: [Range<Int>] = []
        var i = 0
        while i + 4 <= b.count {
            let length = Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3])
            i += 4
            guard length > 0, length <= b.count - i else { break }
            units.append(i..<(i + length))
            i += length
        }
        return units
    }

    /// The NAL units of `b`, Annex B or AVC (`isAnnexB`).
    public static func units(_ b: [UInt8]) -> [Range<Int>] { isAnnexB(b) ? annexBUnits(b) : avcUnits(b) }

    /// True for the NAL unit types of coded slices (1–5): the picture itself.
    public static func isSlice(_ header: UInt8) -> Bool { (1...5).contains(header & 0x1F) }

    /// `frame` (Annex B or AVC) with `unit` inserted before its first slice (after any access
    /// unit delimiter, parameter sets and other SEI), in the frame's own format (Annex B with a
    /// 4-byte start code); nil without a slice.
    public static func insertingBeforeFirstSlice(_ unit: [UInt8], into frame: [UInt8]) -> [UInt8]? {
        guard isAnnexB(frame) else {
            var units = avcUnits(frame).map { Array(frame[$0]) }
            guard let slice = units.firstIndex(where: { !$0.isEmpty && isSlice($0[0]) }) else { return nil }
            units.insert(unit, at: slice)
            return avc(units)
        }
        guard let slice = annexBUnits(frame).first(where: { !$0.isEmpty && isSlice(frame[$0.lowerBound]) }) else { return nil }
        var at = slice.lowerBound - 3
        if at > 0, frame[at - 1] == 0 { at -= 1 }
        return Array(frame[..<at]) + [0, 0, 0, 1] + unit + Array(frame[at...])
    }

    /// Whether `b` is Annex B (it starts with a start code) rather than AVC. An AVC frame
    /// whose first unit is 256–511 bytes long starts with `00 00 01` too; it is AVC when its
    /// lengths cover it exactly.
    public static func isAnnexB(_ b: [UInt8]) -> Bool {
        guard b.starts(with: [0, 0, 1]) || b.starts(with: [0, 0, 0, 1]) else { return false }
        return avcUnits(b).last?.upperBound != b.count
    }

    /// `units` as Annex B, each after a 4-byte start code (what RTP depayloaders and WebRTC's
    /// encoders write).
    public static func annexB(_ units: [[UInt8]]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(units.reduce(0) { $0 + $1.count + 4 })
        for u in units { out += [0, 0, 0, 1] + u }
        return out
    }

    /// `units` as AVC, each after its 4-byte big-endian length.
    public static func avc(_ units: [[UInt8]]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(units.reduce(0) { $0 + $1.count + 4 })
        for u in units {
            let n = UInt32(u.count)
            out += [UInt8(n >> 24), UInt8(truncatingIfNeeded: n >> 16), UInt8(truncatingIfNeeded: n >> 8), UInt8(truncatingIfNeeded: n)] + u
        }
        return out
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

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
    /// Into a buffer sized for the worst case (a 0x03 every third byte).
    public static func escape(_ data: [UInt8]) -> [UInt8] {
        data.withUnsafeBytes { input in
            [UInt8](unsafeUninitializedCapacity: input.count + input.count / 2 + 1) { out, written in
                written = escape(input, into: UnsafeMutableRawBufferPointer(out))
            }
        }
    }

    /// Writes `input` with emulation prevention into `out`, which has room for
    /// `input.count + input.count / 2 + 1` bytes; returns how many it wrote. Runs of bytes
    /// without a zero are copied whole (`memchr` finds the zeros): in ciphertext, where a
    /// zero is one byte in 256, almost everything is.
    public static func escape(_ input: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer) -> Int {
        guard let src = input.baseAddress, let dst = out.baseAddress else { return 0 }
        let count = input.count
        var i = 0, n = 0, zeros = 0
        while i < count {
            if zeros >= 2 {
                let byte = src.load(fromByteOffset: i, as: UInt8.self)
                if byte <= 3 {
                    dst.storeBytes(of: 3, toByteOffset: n, as: UInt8.self)
                    n += 1
                    zeros = 0
                }
                dst.storeBytes(of: byte, toByteOffset: n, as: UInt8.self)
                n += 1
                zeros = byte == 0 ? zeros + 1 : 0
                i += 1
                continue
            }
            // Fewer than two zeros before: nothing needs a 0x03 up to the next zero.
            let zero = memchr(src + i, 0, count - i).map { UnsafeRawPointer($0) - src } ?? count
            if zero > i {
                (dst + n).copyMemory(from: src + i, byteCount: zero - i)
                n += zero - i
                zeros = 0
                i = zero
            }
            if i < count {
                dst.storeBytes(of: 0, toByteOffset: n, as: UInt8.self)
                n += 1
                zeros += 1
                i += 1
            }
        }
        return n
    }

    /// Removes emulation prevention: every 0x03 after two zeros, as LiveKit's `parseRbsp` does.
    public static func unescape(_ data: [UInt8]) -> [UInt8] {
        data.withUnsafeBytes { input in
            [UInt8](unsafeUninitializedCapacity: input.count) { out, written in
                written = unescape(input, into: UnsafeMutableRawBufferPointer(out))
            }
        }
    }

    /// Writes `input` without its emulation prevention bytes into `out` (room for
    /// `input.count` bytes); returns how many it wrote. A 0x03 goes when the two bytes before
    /// it are zeros (found with `memchr`; a 0x03 removed before cannot be one of them).
    public static func unescape(_ input: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer) -> Int {
        guard let src = input.baseAddress, let dst = out.baseAddress else { return 0 }
        let count = input.count
        var copied = 0, n = 0, from = 2
        while from < count, let found = memchr(src + from, 3, count - from) {
            let p = UnsafeRawPointer(found) - src
            if src.load(fromByteOffset: p - 1, as: UInt8.self) == 0, src.load(fromByteOffset: p - 2, as: UInt8.self) == 0 {
                (dst + n).copyMemory(from: src + copied, byteCount: p - copied)
                n += p - copied
                copied = p + 1
            }
            from = p + 1
        }
        (dst + n).copyMemory(from: src + copied, byteCount: count - copied)
        return n + count - copied
    }

    /// Where each NAL unit of an Annex B access unit lies (after its start code). Start codes
    /// are found from their 0x01 (`memchr`), then checked for the two zeros before it.
    public static func annexBUnits(_ b: [UInt8]) -> [Range<Int>] {
        b.withUnsafeBytes { annexBUnits($0) }
    }

    /// Where each NAL unit of the Annex B access unit in `b` lies (after its start code).
    public static func annexBUnits(_ b: UnsafeRawBufferPointer) -> [Range<Int>] {
        guard let base = b.baseAddress else { return [] }
        var starts: [(code: Int, unit: Int)] = []
        var from = 2
        while from < b.count, let found = memchr(base + from, 1, b.count - from) {
            let p = UnsafeRawPointer(found) - base
            if b[p - 1] == 0, b[p - 2] == 0 {
                starts.append((p >= 3 && b[p - 3] == 0 ? p - 3 : p - 2, p + 1))
                from = p + 3
            } else {
                from = p + 1
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
        for u in units {
            out.append(contentsOf: [0, 0, 0, 1] as [UInt8])
            out.append(contentsOf: u)
        }
        return out
    }

    /// The `units` of `b` (ranges into it) as AVC, each after its 4-byte big-endian length,
    /// without copying each unit out first.
    public static func avc(_ b: [UInt8], units: [Range<Int>]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(units.reduce(0) { $0 + $1.count + 4 })
        for u in units {
            let n = UInt32(u.count)
            for shift: UInt32 in [24, 16, 8, 0] { out.append(UInt8(truncatingIfNeeded: n >> shift)) }
            out.append(contentsOf: b[u])
        }
        return out
    }

    /// `units` as AVC, each after its 4-byte big-endian length.
    public static func avc(_ units: [[UInt8]]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(units.reduce(0) { $0 + $1.count + 4 })
        for u in units {
            let n = UInt32(u.count)
            for shift: UInt32 in [24, 16, 8, 0] { out.append(UInt8(truncatingIfNeeded: n >> shift)) }
            out.append(contentsOf: u)
        }
        return out
    }
}

import SluiceFilterKit

/// H.264 SEI `user_data_unregistered` messages (ITU-T H.264 D.1.6, payload type 5): a 16-byte
/// UUID and free bytes, in a NAL unit of type 6 that decoders skip and tools show (`ffprobe
/// -show_frames`: "H.26[45] User Data Unregistered SEI message").
public enum SEIMessage {
    /// Sluice's UUID (`7c1c3f1e-5a1d-4c1e-8e57-51ce5e1d0001`): a message with another UUID is
    /// someone else's.
    public static let uuid: [UInt8] = [
        0x7C, 0x1C, 0x3F, 0x1E, 0x5A, 0x1D, 0x4C, 0x1E, 0x8E, 0x57, 0x51, 0xCE, 0x5E, 0x1D, 0x00, 0x01
    ]
    /// The SEI NAL unit's type.
    public static let nalType: UInt8 = 6
    /// `user_data_unregistered`'s payload type.
    public static let payloadType = 5
    /// The most data a message carries here (a frame's metadata, not a file).
    public static let maxData = 1024

    /// The NAL unit (header byte and escaped RBSP, no start code or length) carrying `data`.
    public static func nalUnit(carrying data: [UInt8]) -> [UInt8] {
        var rbsp: [UInt8] = [UInt8(payloadType)]
        var size = uuid.count + data.count
        while size >= 255 {
            rbsp.append(0xFF)
            size -= 255
        }
        rbsp.append(UInt8(size))
        rbsp += uuid + data
        rbsp.append(0x80) // rbsp_trailing_bits
        return [nalType] + H264Units.escape(rbsp)
    }

    /// The data of every Sluice message in one SEI NAL unit (its header byte first, escaped),
    /// or nil when the unit is not SEI. A malformed or truncated unit yields what was read
    /// before the damage, never more than its bytes.
    public static func data(inNALUnit nal: ArraySlice<UInt8>) -> [[UInt8]]? {
        guard let header = nal.first, header & 0x1F == nalType else { return nil }
        let rbsp = H264Units.unescape(Array(nal.dropFirst()))
        var found: [[UInt8]] = []
        var i = 0
        while i < rbsp.count, !(rbsp[i] == 0x80 && i == rbsp.count - 1) {
            guard let type = varying(rbsp, &i), let size = varying(rbsp, &i), size <= rbsp.count - i else { break }
            let payload = rbsp[i..<(i + size)]
            if type == payloadType, size >= uuid.count, payload.prefix(uuid.count).elementsEqual(uuid) {
                found.append(Array(payload.dropFirst(uuid.count)))
            }
            i += size
        }
        return found
    }

    /// An SEI number (payload type or size): 0xFF bytes each adding 255, then the last byte.
    private static func varying(_ b: [UInt8], _ i: inout Int) -> Int? {
        var value = 0
        while i < b.count {
            let byte = b[i]
            i += 1
            value += Int(byte)
            if byte != 0xFF { return value }
            if value > 1 << 20 { return nil }
        }
        return nil
    }
}

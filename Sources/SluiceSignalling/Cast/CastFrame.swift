import Foundation
import SwiftProtobuf

/// CASTV2 framing: each message is a 4-byte big-endian length, then that many bytes of a
/// protobuf `CastMessage` (Protos/cast_channel.proto). Messages are at most 64 KiB, as Cast
/// devices allow.
public enum CastFrame {
    /// The largest CastMessage a frame may carry, in bytes (64 KiB).
    public static let maxMessage = 65_536

    /// Why a stream of frames was refused.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// A length prefix over `maxMessage` (the length given).
        case tooLong(Int)
        /// A frame whose bytes do not decode as a CastMessage (the decoder's reason).
        case notAMessage(String)
        /// The reason in words.
        public var description: String {
            switch self {
            case .tooLong(let n): "a CASTV2 frame of \(n) bytes (at most \(CastFrame.maxMessage))"
            case .notAMessage(let why): "a CASTV2 frame that is not a CastMessage: \(why)"
            }
        }
    }

    /// Takes complete frames off the front of `buffer`; throws on a frame no receiver accepts.
    public static func take(from buffer: inout [UInt8]) throws(Failure) -> [Extensions_Api_CastChannel_CastMessage] {
        var out: [Extensions_Api_CastChannel_CastMessage] = []
        while buffer.count >= 4 {
            let n = Int(buffer[0]) << 24 | Int(buffer[1]) << 16 | Int(buffer[2]) << 8 | Int(buffer[3])
            guard n <= maxMessage else { throw .tooLong(n) }
            guard buffer.count >= 4 + n else { break }
            let body = Data(buffer[4..<(4 + n)])
            buffer.removeFirst(4 + n)
            do {
                out.append(try Extensions_Api_CastChannel_CastMessage(serializedBytes: body))
            } catch {
                throw .notAMessage("\(error)")
            }
        }
        return out
    }

    /// One message as a frame.
    public static func encode(_ message: Extensions_Api_CastChannel_CastMessage) -> [UInt8] {
        let body: [UInt8] = (try? message.serializedBytes()) ?? []
        let n = body.count
        return [UInt8(n >> 24 & 0xff), UInt8(n >> 16 & 0xff), UInt8(n >> 8 & 0xff), UInt8(n & 0xff)] + body
    }

    /// A JSON message on `namespace`.
    public static func message(
        from source: String, to destination: String, namespace: String,
        json: JSONValue
    ) -> Extensions_Api_CastChannel_CastMessage {
        var m = Extensions_Api_CastChannel_CastMessage()
        m.protocolVersion = .castv210
        m.sourceID = source
        m.destinationID = destination
        m.namespace = namespace
        m.payloadType = .string
        m.payloadUtf8 = json.text
        return m
    }
}

import CSluiceTUN
import Foundation
import SluiceRun

/// An existing TUN device (created with `ip tuntap add dev NAME mode tun`), attached to as
/// IFF_TUN | IFF_NO_PI: every read is one IP packet, every write sends one.
public enum TUNDevice {
    /// Why a TUN device could not be attached to.
    public struct AttachError: Error, CustomStringConvertible {
        /// The device's name.
        public let name: String
        /// The system's error number.
        public let code: Int32

        /// `cannot attach to TUN device NAME: REASON`.
        public var description: String {
            "cannot attach to TUN device \(name): \(String(cString: strerror(code)))"
        }
    }

    /// Attaches to the device `name`; returns its file descriptor (close-on-exec).
    public static func attach(_ name: String) throws(AttachError) -> Int32 {
        let fd = sluice_tun_attach(name)
        guard fd >= 0 else { throw AttachError(name: name, code: -fd) }
        return fd
    }
}

/// Video offers as real stacks wrote them (the H.264 parts), for tests of payload type
/// and profile choice.
public enum H264Offers {
    /// Chromium's mode-1 H.264 payload types, one per profile.
    public static let chromium = """
        v=0\r
        o=- 1 2 IN IP4 127.0.0.1\r
        s=-\r
        t=0 0\r
        a=group:BUNDLE 0\r
        m=video 9 UDP/TLS/RTP/SAVPF 102 108 116 41\r
        c=IN IP4 0.0.0.0\r
        a=mid:0\r
        a=recvonly\r
        a=rtpmap:102 H264/90000\r
        a=fmtp:102 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42001f\r
        a=rtpmap:108 H264/90000\r
        a=fmtp:108 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f\r
        a=rtpmap:116 H264/90000\r
        a=fmtp:116 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=4d001f\r
        a=rtpmap:41 H264/90000\r
        a=fmtp:41 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=f4001f\r

        """
    /// aiortc's: Baseline and Constrained Baseline only.
    /// Firefox ESR without Mozilla's OpenH264 plugin (Debian's, offline): VP8 and VP9 only,
    /// as its recvonly video section lists them.
    public static let firefoxWithoutH264 = """
        v=0\r
        o=mozilla...THIS_IS_SDPARTA-128.0 1 0 IN IP4 0.0.0.0\r
        s=-\r
        t=0 0\r
        a=group:BUNDLE 0\r
        m=video 9 UDP/TLS/RTP/SAVPF 120 124 121 125 123 122 119\r
        c=IN IP4 0.0.0.0\r
        a=mid:0\r
        a=recvonly\r
        a=rtcp-mux\r
        a=rtpmap:120 VP8/90000\r
        a=fmtp:120 max-fs=12288;max-fr=60\r
        a=rtcp-fb:120 nack\r
        a=rtcp-fb:120 nack pli\r
        a=rtcp-fb:120 ccm fir\r
        a=rtcp-fb:120 goog-remb\r
        a=rtcp-fb:120 transport-cc\r
        a=rtpmap:124 rtx/90000\r
        a=fmtp:124 apt=120\r
        a=rtpmap:121 VP9/90000\r
        a=fmtp:121 max-fs=12288;max-fr=60\r
        a=rtpmap:125 rtx/90000\r
        a=fmtp:125 apt=121\r
        a=rtpmap:123 ulpfec/90000\r
        a=rtpmap:122 red/90000\r
        a=rtpmap:119 rtx/90000\r
        a=fmtp:119 apt=122\r

        """

    public static let aiortc = """
        v=0\r
        o=- 1 2 IN IP4 127.0.0.1\r
        s=-\r
        t=0 0\r
        a=group:BUNDLE 0\r
        m=video 9 UDP/TLS/RTP/SAVPF 99 101\r
        c=IN IP4 0.0.0.0\r
        a=mid:0\r
        a=recvonly\r
        a=rtpmap:99 H264/90000\r
        a=fmtp:99 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42001f\r
        a=rtpmap:101 H264/90000\r
        a=fmtp:101 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f\r

        """

    /// Every H.264 payload type Chromium offered here (Debian's Chromium): High only as High
    /// 4:4:4 Predictive, at numbers below 96.
    public static let chromiumFull = """
        v=0\r
        o=- 1 2 IN IP4 127.0.0.1\r
        s=-\r
        t=0 0\r
        m=video 9 UDP/TLS/RTP/SAVPF 102 104 108 114 116 39 41 43\r
        a=mid:0\r
        a=recvonly\r
        a=rtpmap:102 H264/90000\r
        a=fmtp:102 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42001f\r
        a=rtpmap:104 H264/90000\r
        a=fmtp:104 level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=42001f\r
        a=rtpmap:108 H264/90000\r
        a=fmtp:108 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f\r
        a=rtpmap:114 H264/90000\r
        a=fmtp:114 level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=42e01f\r
        a=rtpmap:116 H264/90000\r
        a=fmtp:116 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=4d001f\r
        a=rtpmap:39 H264/90000\r
        a=fmtp:39 level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=4d001f\r
        a=rtpmap:41 H264/90000\r
        a=fmtp:41 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=f4001f\r
        a=rtpmap:43 H264/90000\r
        a=fmtp:43 level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=f4001f\r

        """
}

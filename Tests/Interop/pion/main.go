// pionpeer: a Pion WebRTC (v3, Debian's golang-github-pion-webrtc.v3-dev) peer for Sluice's
// interop tests. Modes: whep-play, whip-publish, whep-serve, whip-serve (see README.md).
// Logs go to stderr; the result is one JSON object on stdout (or --out FILE).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/pion/ice/v2"
	"github.com/pion/interceptor"
	"github.com/pion/logging"
	"github.com/pion/webrtc/v3"
)

func usage() {
	fmt.Fprintln(os.Stderr, `usage: pionpeer MODE [flags]
  whep-play    --url URL [--token T] --seconds N [--codec vp8|h264|vp9] [--no-audio] [--out FILE]
  whip-publish --url URL [--token T] --seconds N --video FILE [--audio FILE.ogg] [--fps F] [--out FILE]
  whep-serve   --listen 127.0.0.1:PORT --video FILE [--audio FILE.ogg] [--seconds N] [--fps F] [--out FILE]
  whip-serve   --listen 127.0.0.1:PORT [--codec vp8|h264|vp9] [--seconds N] [--out FILE] [--simulcast | --one-stream]   (a WHIP receiver)
common: --any-interface (default: ICE candidates on loopback addresses only),
        --log-level error|warn|info|debug|trace, --sdp-log FILE (append offers and answers)
run "pionpeer MODE -h" for a mode's flags`)
}

func main() {
	if len(os.Args) < 2 {
		usage()
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "whep-play":
		err = runWHEPPlay(os.Args[2:])
	case "whip-publish":
		err = runWHIPPublish(os.Args[2:])
	case "whep-serve":
		err = runWHEPServe(os.Args[2:])
	case "whip-serve":
		err = runWHIPServe(os.Args[2:])
	case "-h", "--help", "help":
		usage()
		return
	default:
		usage()
		err = fmt.Errorf("unknown mode %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "pionpeer %s: error: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}

func logf(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "pionpeer: "+format+"\n", args...)
}

// writeResult prints v as one JSON line to stdout, or to the file path if it is not empty.
func writeResult(path string, v interface{}) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if path == "" {
		_, err = os.Stdout.Write(b)
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// logCapture is the io.Writer behind Pion's loggers: it copies every line to stderr and
// keeps those that mention unhandled streams (e.g. "Incoming unhandled RTP ssrc(...)").
type logCapture struct {
	mu        sync.Mutex
	unhandled []string
	lastError string // last Pion line about DTLS/ICE/SRTP failures, added to failure messages
}

func (c *logCapture) Write(p []byte) (int, error) {
	os.Stderr.Write(p)
	for _, line := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		low := strings.ToLower(line)
		c.mu.Lock()
		if strings.Contains(low, "unhandled") && len(c.unhandled) < 50 {
			c.unhandled = append(c.unhandled, strings.TrimSpace(line))
		}
		if c.lastError == "" && (strings.Contains(low, "failed to start manager") || strings.Contains(low, "fingerprint") ||
			strings.Contains(low, "handshake") || strings.Contains(low, "no codecs") || strings.Contains(low, "failed to start srtp")) {
			c.lastError = strings.TrimSpace(line)
		}
		c.mu.Unlock()
	}
	return len(p), nil
}

// explain adds the first Pion error line seen (e.g. a DTLS fingerprint mismatch) to err.
func (c *logCapture) explain(err error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err == nil || c.lastError == "" {
		return err
	}
	return fmt.Errorf("%w; Pion said: %s", err, c.lastError)
}

func (c *logCapture) lines() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string{}, c.unhandled...)
}

// peerOptions are the flags every mode shares.
type peerOptions struct {
	anyInterface bool
	logLevel     string
	sdpFile      string // --sdp-log: offers and answers are appended here
	capture      *logCapture
	// videoExtensions: header extensions registered for video beyond the interceptors'.
	videoExtensions []string
}

// commonFlags registers the flags every mode has.
func (o *peerOptions) commonFlags(fs *flag.FlagSet) {
	fs.BoolVar(&o.anyInterface, "any-interface", false, "gather candidates on every interface, not only loopback")
	fs.StringVar(&o.logLevel, "log-level", "warn", "Pion log level: error, warn, info, debug, trace")
	fs.StringVar(&o.sdpFile, "sdp-log", "", "append every offer and answer to this file")
}

// logSDP appends one description to --sdp-log.
func (o *peerOptions) logSDP(label, sdp string) {
	if o.sdpFile == "" {
		return
	}
	f, err := os.OpenFile(o.sdpFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		logf("--sdp-log: %v", err)
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "=== %s %s\n%s\n", time.Now().Format("15:04:05.000"), label, strings.TrimRight(sdp, "\r\n"))
}

func (o *peerOptions) loggerFactory() *logging.DefaultLoggerFactory {
	lf := logging.NewDefaultLoggerFactory() // honours PION_LOG_* environment variables
	lf.Writer = o.capture
	levels := map[string]logging.LogLevel{"error": logging.LogLevelError, "warn": logging.LogLevelWarn,
		"info": logging.LogLevelInfo, "debug": logging.LogLevelDebug, "trace": logging.LogLevelTrace}
	if l, ok := levels[strings.ToLower(o.logLevel)]; ok && l > lf.DefaultLogLevel {
		lf.DefaultLogLevel = l
	}
	return lf
}

var videoFeedback = []webrtc.RTCPFeedback{{Type: "goog-remb"}, {Type: "ccm", Parameter: "fir"}, {Type: "nack"}, {Type: "nack", Parameter: "pli"}}

// videoCodecs returns the video codecs registered for one codec name (vp8, h264, vp9).
func videoCodecs(name string) ([]webrtc.RTPCodecParameters, error) {
	c := func(mime, fmtp string, pt webrtc.PayloadType) webrtc.RTPCodecParameters {
		return webrtc.RTPCodecParameters{RTPCodecCapability: webrtc.RTPCodecCapability{MimeType: mime, ClockRate: 90000, SDPFmtpLine: fmtp, RTCPFeedback: videoFeedback}, PayloadType: pt}
	}
	switch strings.ToLower(name) {
	case "vp8":
		return []webrtc.RTPCodecParameters{c(webrtc.MimeTypeVP8, "", 96)}, nil
	case "vp9":
		return []webrtc.RTPCodecParameters{c(webrtc.MimeTypeVP9, "profile-id=0", 98), c(webrtc.MimeTypeVP9, "profile-id=2", 100)}, nil
	case "h264":
		const f = "level-asymmetry-allowed=1;packetization-mode=%d;profile-level-id=%s"
		return []webrtc.RTPCodecParameters{
			c(webrtc.MimeTypeH264, fmt.Sprintf(f, 1, "42001f"), 102), c(webrtc.MimeTypeH264, fmt.Sprintf(f, 0, "42001f"), 127),
			c(webrtc.MimeTypeH264, fmt.Sprintf(f, 1, "42e01f"), 125), c(webrtc.MimeTypeH264, fmt.Sprintf(f, 0, "42e01f"), 108),
			c(webrtc.MimeTypeH264, fmt.Sprintf(f, 1, "4d001f"), 104), c(webrtc.MimeTypeH264, fmt.Sprintf(f, 1, "640032"), 123),
		}, nil
	}
	return nil, fmt.Errorf("unknown codec %q (want vp8, h264 or vp9)", name)
}

var opusCodec = webrtc.RTPCodecParameters{
	RTPCodecCapability: webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypeOpus, ClockRate: 48000, Channels: 2, SDPFmtpLine: "minptime=10;useinbandfec=1"},
	PayloadType:        111,
}

// newAPI builds a Pion API: the given video codec and Opus only (or Pion's defaults when codec
// is empty), the default interceptors (NACK, RTCP reports, TWCC header extension), host UDP4
// candidates including loopback ones, no mDNS.
func (o *peerOptions) newAPI(codec string) (*webrtc.API, error) {
	m := &webrtc.MediaEngine{}
	if codec == "" {
		if err := m.RegisterDefaultCodecs(); err != nil {
			return nil, err
		}
	} else {
		vcs, err := videoCodecs(codec)
		if err != nil {
			return nil, err
		}
		for _, vc := range vcs {
			if err := m.RegisterCodec(vc, webrtc.RTPCodecTypeVideo); err != nil {
				return nil, err
			}
		}
		if err := m.RegisterCodec(opusCodec, webrtc.RTPCodecTypeAudio); err != nil {
			return nil, err
		}
	}
	for _, uri := range o.videoExtensions {
		if err := m.RegisterHeaderExtension(webrtc.RTPHeaderExtensionCapability{URI: uri}, webrtc.RTPCodecTypeVideo); err != nil {
			return nil, err
		}
	}
	ir := &interceptor.Registry{}
	if err := webrtc.RegisterDefaultInterceptors(m, ir); err != nil {
		return nil, err
	}
	se := webrtc.SettingEngine{LoggerFactory: o.loggerFactory()}
	se.SetIncludeLoopbackCandidate(true)
	se.SetNetworkTypes([]webrtc.NetworkType{webrtc.NetworkTypeUDP4})
	se.SetICEMulticastDNSMode(ice.MulticastDNSModeDisabled)
	if !o.anyInterface {
		se.SetIPFilter(func(ip net.IP) bool { return ip.IsLoopback() })
	}
	return webrtc.NewAPI(webrtc.WithMediaEngine(m), webrtc.WithInterceptorRegistry(ir), webrtc.WithSettingEngine(se)), nil
}

// gatherAndDescribe sets desc as the local description and waits (bounded) for ICE gathering
// to complete, so the SDP carries every candidate (no trickle).
func gatherAndDescribe(pc *webrtc.PeerConnection, desc webrtc.SessionDescription, timeout time.Duration) (string, error) {
	done := webrtc.GatheringCompletePromise(pc)
	if err := pc.SetLocalDescription(desc); err != nil {
		return "", fmt.Errorf("SetLocalDescription: %w", err)
	}
	select {
	case <-done:
	case <-time.After(timeout):
		return "", fmt.Errorf("ICE gathering did not complete within %v", timeout)
	}
	return pc.LocalDescription().SDP, nil
}

var httpClient = &http.Client{Timeout: 10 * time.Second}

// postOffer POSTs an SDP offer (WHEP/WHIP), expects 201 Created with a Location, and returns
// the answer SDP and the absolute session URL.
func (o *peerOptions) postOffer(endpoint, token, offer string) (answer, location string, err error) {
	o.logSDP("offer POST "+endpoint, offer)
	req, err := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(offer))
	if err != nil {
		return "", "", err
	}
	req.Header.Set("Content-Type", "application/sdp")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		return "", "", fmt.Errorf("POST %s: %w", endpoint, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return "", "", fmt.Errorf("POST %s: reading the answer: %w", endpoint, err)
	}
	if resp.StatusCode != http.StatusCreated {
		return "", "", fmt.Errorf("POST %s: status %d, want 201: %.300s", endpoint, resp.StatusCode, strings.TrimSpace(string(body)))
	}
	loc := resp.Header.Get("Location")
	if loc == "" {
		return "", "", fmt.Errorf("POST %s: 201 without a Location header", endpoint)
	}
	base, _ := url.Parse(endpoint)
	ref, err := url.Parse(loc)
	if err != nil {
		return "", "", fmt.Errorf("POST %s: bad Location %q: %w", endpoint, loc, err)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/sdp") {
		logf("warning: answer Content-Type is %q, not application/sdp", ct)
	}
	o.logSDP("answer", string(body))
	return string(body), base.ResolveReference(ref).String(), nil
}

// deleteSession sends DELETE to a WHEP/WHIP session URL; failures are logged, not fatal.
func deleteSession(location, token string) int {
	req, err := http.NewRequest(http.MethodDelete, location, nil)
	if err != nil {
		logf("DELETE %s: %v", location, err)
		return 0
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		logf("DELETE %s: %v", location, err)
		return 0
	}
	resp.Body.Close()
	logf("DELETE %s: %d", location, resp.StatusCode)
	return resp.StatusCode
}

// iceTracker remembers the ICE and peer connection states and signals when the peer
// connection connects or fails.
type iceTracker struct {
	mu        sync.Mutex
	ice       webrtc.ICEConnectionState
	connected chan struct{}
	failed    chan struct{}
	once1     sync.Once
	once2     sync.Once
	// step, when set before negotiation, is told each first ICE and peer connection state
	// ("ice connected", "peer connected"): a start-up timeline's steps.
	step func(name string)
}

func trackStates(pc *webrtc.PeerConnection, label string) *iceTracker {
	t := &iceTracker{connected: make(chan struct{}), failed: make(chan struct{})}
	pc.OnICEConnectionStateChange(func(s webrtc.ICEConnectionState) {
		logf("%s: ICE %s", label, s)
		t.mu.Lock()
		t.ice = s
		step := t.step
		t.mu.Unlock()
		if step != nil {
			step("ice " + s.String())
		}
	})
	pc.OnConnectionStateChange(func(s webrtc.PeerConnectionState) {
		logf("%s: peer connection %s", label, s)
		t.mu.Lock()
		step := t.step
		t.mu.Unlock()
		if step != nil {
			step("peer " + s.String())
		}
		switch s {
		case webrtc.PeerConnectionStateConnected:
			t.once1.Do(func() { close(t.connected) })
		case webrtc.PeerConnectionStateFailed, webrtc.PeerConnectionStateClosed:
			t.once2.Do(func() { close(t.failed) })
		}
	})
	return t
}

// state is the current ICE state, e.g. "connected".
func (t *iceTracker) state() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.ice.String()
}

// watchdog ends the process if it is still running after d, whatever it is waiting for.
func watchdog(d time.Duration) {
	go func() {
		time.Sleep(d)
		fmt.Fprintf(os.Stderr, "pionpeer %s: error: still running after %v, giving up\n", os.Args[1], d)
		os.Exit(1)
	}()
}

package main

// whep-play: receive a WHEP stream, assemble video frames, count them and audio packets.

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/pion/rtcp"
	"github.com/pion/rtp"
	"github.com/pion/rtp/codecs"
	"github.com/pion/webrtc/v3"
	"github.com/pion/webrtc/v3/pkg/media/samplebuilder"
)

type playResult struct {
	VideoFrames  int     `json:"video_frames"`
	Keyframes    int     `json:"keyframes"`
	Width        int     `json:"width"`
	Height       int     `json:"height"`
	FPS          float64 `json:"fps"`
	MeasuredS    float64 `json:"measured_s"`
	AudioPackets int     `json:"audio_packets"`
	VideoCodec   string  `json:"video_codec"`
	AudioCodec   string  `json:"audio_codec"`
	ICEState     string  `json:"ice_state"`
	FirstFrameMs int64   `json:"first_frame_ms"`
	// StepsMs: each start-up step's first time, in ms after the WHEP POST ("answer",
	// "ice connected", "peer connected", "first video packet", "first frame").
	StepsMs      map[string]float64 `json:"steps_ms"`
	DeleteStatus int                `json:"delete_status"`
	Unhandled    []string           `json:"unhandled"`
	// Layers: a simulcast publisher's layers, by rid (whip-serve --simulcast).
	Layers map[string]playResult `json:"layers,omitempty"`
}

type playStats struct {
	mu         sync.Mutex
	res        playResult
	first      time.Time // first assembled video frame
	last       time.Time // latest one
	firstFrame chan struct{}
	once       sync.Once
	post       time.Time // the WHEP POST; zero before it
}

// msSince is the time from start to at in milliseconds, to the microsecond: Pion's own
// start-up steps take 1 to 3 ms, which whole milliseconds would round by up to half.
func msSince(start, at time.Time) float64 {
	return float64(at.Sub(start).Microseconds()) / 1000
}

// mark records a start-up step's first time after the POST.
func (st *playStats) mark(name string) {
	now := time.Now()
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.post.IsZero() {
		return
	}
	if _, seen := st.res.StepsMs[name]; !seen {
		st.res.StepsMs[name] = msSince(st.post, now)
	}
}

func runWHEPPlay(args []string) error {
	fs := flag.NewFlagSet("whep-play", flag.ExitOnError)
	endpoint := fs.String("url", "", "WHEP endpoint URL (required)")
	token := fs.String("token", "", "bearer token")
	seconds := fs.Float64("seconds", 10, "seconds to measure after the first video frame")
	codec := fs.String("codec", "", "offer only this video codec (vp8, h264, vp9) and Opus; default: Pion's default codecs")
	noAudio := fs.Bool("no-audio", false, "no audio transceiver")
	out := fs.String("out", "", "write the JSON result to this file instead of stdout")
	opts := &peerOptions{capture: &logCapture{}}
	opts.commonFlags(fs)
	fs.Parse(args)
	if *endpoint == "" {
		return errors.New("--url is required")
	}
	measure := time.Duration(*seconds * float64(time.Second))
	total := measure + 10*time.Second // the whole run, from now
	deadline := time.NewTimer(total)
	defer deadline.Stop()
	watchdog(total + 30*time.Second)
	api, err := opts.newAPI(*codec)
	if err != nil {
		return err
	}
	pc, err := api.NewPeerConnection(webrtc.Configuration{})
	if err != nil {
		return err
	}
	defer pc.Close()
	recv := webrtc.RTPTransceiverInit{Direction: webrtc.RTPTransceiverDirectionRecvonly}
	if _, err := pc.AddTransceiverFromKind(webrtc.RTPCodecTypeVideo, recv); err != nil {
		return err
	}
	if !*noAudio {
		if _, err := pc.AddTransceiverFromKind(webrtc.RTPCodecTypeAudio, recv); err != nil {
			return err
		}
	}
	states := trackStates(pc, "whep-play")
	st := &playStats{firstFrame: make(chan struct{}), res: playResult{StepsMs: map[string]float64{}}}
	states.mu.Lock()
	states.step = st.mark
	states.mu.Unlock()
	var postTime time.Time
	pc.OnTrack(func(track *webrtc.TrackRemote, _ *webrtc.RTPReceiver) {
		c := track.Codec()
		logf("track %s: %s pt=%d ssrc=%d fmtp=%q", track.Kind(), c.MimeType, c.PayloadType, track.SSRC(), c.SDPFmtpLine)
		if track.Kind() == webrtc.RTPCodecTypeAudio {
			st.readAudio(track)
			return
		}
		go requestKeyframes(pc, track, st)
		st.readVideo(track, postTime)
	})

	offer, err := pc.CreateOffer(nil)
	if err != nil {
		return err
	}
	sdp, err := gatherAndDescribe(pc, offer, 10*time.Second)
	if err != nil {
		return err
	}
	start := time.Now()
	postTime = start
	st.mu.Lock()
	st.post = start
	st.mu.Unlock()
	answer, location, err := opts.postOffer(*endpoint, *token, sdp)
	if err != nil {
		return err
	}
	st.mark("answer")
	logf("session %s", location)
	if err := pc.SetRemoteDescription(webrtc.SessionDescription{Type: webrtc.SDPTypeAnswer, SDP: answer}); err != nil {
		deleteSession(location, *token)
		return fmt.Errorf("SetRemoteDescription(answer): %w", err)
	}

	var failure error
	select {
	case <-st.firstFrame:
		select {
		case <-time.After(measure):
		case <-deadline.C:
		case <-states.failed:
			failure = errors.New("peer connection failed or closed during the measurement")
		}
	case <-deadline.C:
		failure = fmt.Errorf("no video frame within %.0f s (ICE %s)", total.Seconds(), states.state())
	case <-states.failed:
		failure = fmt.Errorf("peer connection failed before the first video frame (ICE %s)", states.state())
	}
	stop := time.Now()
	iceState := states.state()
	del := deleteSession(location, *token)
	pc.Close()

	st.mu.Lock()
	res := st.res
	// A copy: state callbacks still mark steps ("ice closed") while the result is written.
	res.StepsMs = make(map[string]float64, len(st.res.StepsMs))
	for k, v := range st.res.StepsMs {
		res.StepsMs[k] = v
	}
	if !st.first.IsZero() {
		res.MeasuredS = stop.Sub(st.first).Seconds()
		if res.MeasuredS > 0 {
			res.FPS = float64(res.VideoFrames) / res.MeasuredS
		}
	}
	st.mu.Unlock()
	res.ICEState, res.DeleteStatus, res.Unhandled = iceState, del, opts.capture.lines()
	if res.Unhandled == nil {
		res.Unhandled = []string{}
	}
	logf("video %s: %d frames (%d keyframes) %dx%d %.1f fps, audio %d packets, first frame %d ms",
		res.VideoCodec, res.VideoFrames, res.Keyframes, res.Width, res.Height, res.FPS, res.AudioPackets, res.FirstFrameMs)
	if err := writeResult(*out, res); err != nil {
		return err
	}
	return opts.capture.explain(failure)
}

// readAudio counts a track's RTP packets.
func (st *playStats) readAudio(track *webrtc.TrackRemote) {
	st.mu.Lock()
	st.res.AudioCodec = strings.TrimPrefix(strings.ToLower(track.Codec().MimeType), "audio/")
	st.mu.Unlock()
	for {
		if _, _, err := track.ReadRTP(); err != nil {
			return
		}
		st.mu.Lock()
		st.res.AudioPackets++
		st.mu.Unlock()
	}
}

// readVideo assembles frames with the sample builder and reads sizes from keyframes.
func (st *playStats) readVideo(track *webrtc.TrackRemote, postTime time.Time) {
	mime := strings.ToLower(track.Codec().MimeType)
	var depack rtp.Depacketizer
	var size func([]byte) (int, int, bool, bool) // width, height, keyframe, size known
	switch mime {
	case strings.ToLower(webrtc.MimeTypeVP8):
		depack = &codecs.VP8Packet{}
		size = func(f []byte) (int, int, bool, bool) { w, h, ok := vp8KeyframeSize(f); return w, h, ok, ok }
	case strings.ToLower(webrtc.MimeTypeVP9):
		depack = &codecs.VP9Packet{}
		size = func(f []byte) (int, int, bool, bool) { w, h, ok := vp9KeyframeSize(f); return w, h, ok, ok }
	case strings.ToLower(webrtc.MimeTypeH264):
		depack = &codecs.H264Packet{}
		size = func(f []byte) (int, int, bool, bool) {
			w, h, idr, ok := h264KeyframeSize(f)
			return w, h, idr || ok, ok
		}
	}
	st.mu.Lock()
	st.res.VideoCodec = strings.TrimPrefix(mime, "video/")
	st.mu.Unlock()
	if depack == nil {
		logf("video codec %s: no depacketizer, frames are not counted", mime)
		for {
			if _, _, err := track.ReadRTP(); err != nil {
				return
			}
		}
	}
	// maxLate: packets held while waiting for a frame's missing ones; it must exceed the
	// largest keyframe's packet count.
	dumpRTP := 0
	if os.Getenv("PIONPEER_DUMP_RTP") != "" {
		dumpRTP = 80
	}
	// When each frame's last packet (RTP marker) came: a frame is complete then, though the
	// sample builder gives it out only once the next frame's first packet shows it ended.
	completed := map[uint32]time.Time{}
	sb := samplebuilder.New(512, depack, track.Codec().ClockRate, samplebuilder.WithMaxTimeDelay(time.Second))
	for {
		pkt, _, err := track.ReadRTP()
		if err != nil {
			return
		}
		if dumpRTP > 0 && len(pkt.Payload) > 1 {
			dumpRTP--
			logf("rtp seq %d ts %d marker %v nal %d fu %x len %d", pkt.SequenceNumber, pkt.Timestamp, pkt.Marker, pkt.Payload[0]&0x1f, pkt.Payload[1], len(pkt.Payload))
		}
		st.mark("first video packet")
		if completed != nil && pkt.Marker && len(completed) < 64 {
			completed[pkt.Timestamp] = time.Now()
		}
		sb.Push(pkt)
		for s := sb.Pop(); s != nil; s = sb.Pop() {
			now := time.Now()
			w, h, key, known := size(s.Data)
			st.mu.Lock()
			st.res.VideoFrames++
			st.last = now
			if key {
				st.res.Keyframes++
			}
			if known {
				if (w != st.res.Width || h != st.res.Height) && st.res.Width != 0 {
					logf("video size changed: %dx%d -> %dx%d", st.res.Width, st.res.Height, w, h)
				}
				st.res.Width, st.res.Height = w, h
			}
			if st.first.IsZero() {
				st.first = now
				st.res.FirstFrameMs = now.Sub(postTime).Milliseconds()
				st.res.StepsMs["first frame"] = msSince(postTime, now)
				if at, ok := completed[s.PacketTimestamp]; ok {
					st.res.StepsMs["first frame complete"] = msSince(postTime, at)
				}
				completed = nil
				logf("first video frame after %d ms (%d bytes, keyframe %v)", st.res.FirstFrameMs, len(s.Data), key)
			}
			st.mu.Unlock()
			st.once.Do(func() { close(st.firstFrame) })
		}
	}
}

// requestKeyframes sends a PLI every second until a keyframe has arrived.
func requestKeyframes(pc *webrtc.PeerConnection, track *webrtc.TrackRemote, st *playStats) {
	for i := 0; i < 30; i++ {
		st.mu.Lock()
		done := st.res.Keyframes > 0
		st.mu.Unlock()
		if done {
			return
		}
		if i > 0 {
			if err := pc.WriteRTCP([]rtcp.Packet{&rtcp.PictureLossIndication{MediaSSRC: uint32(track.SSRC())}}); err != nil {
				return
			}
		}
		time.Sleep(time.Second)
	}
}

package main

// whip-serve (an extra mode, for checking publishers such as whip-publish or Sluice's
// transport kind whip): a minimal WHIP endpoint that receives, assembles and counts frames
// like whep-play, and reports each session when it ends.
//
// Simulcast: Pion answers an offer's rids with `a=simulcast:recv` of them all. With
// --simulcast the MID and RID header extensions are registered, so Pion tells the layers'
// packets apart, and each layer is counted on its own (`layers`, by rid). With --one-stream
// the answer's simulcast lines are taken out (the extensions are registered as with
// --simulcast): the server takes one ordinary stream, as a WHIP server without simulcast
// does, and whatever arrives is still counted per rid.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/pion/webrtc/v3"
)

type whipSession struct {
	pc     *webrtc.PeerConnection
	stats  *playStats
	layers map[string]*playStats // by rid (simulcast), under the server's lock
	start  time.Time
}

type whipServer struct {
	api       *webrtc.API
	opts      *peerOptions
	oneStream bool
	mu        sync.Mutex
	sessions  map[string]*whipSession
	ended     []playResult
}

// simulcastExtensions are what Pion needs to tell a simulcast publisher's layers apart.
var simulcastExtensions = []string{
	"urn:ietf:params:rtp-hdrext:sdes:mid",
	"urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id",
	"urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id",
}

// withoutSimulcast takes the rid and simulcast lines out of an answer.
func withoutSimulcast(sdp string) string {
	var kept []string
	for _, line := range strings.Split(sdp, "\r\n") {
		if strings.HasPrefix(line, "a=rid:") || strings.HasPrefix(line, "a=simulcast:") {
			continue
		}
		kept = append(kept, line)
	}
	return strings.Join(kept, "\r\n")
}

// finish fills in a result's rate: frames over first to last frame.
func (st *playStats) finish() playResult {
	st.mu.Lock()
	defer st.mu.Unlock()
	res := st.res
	if !st.first.IsZero() && st.last.After(st.first) {
		res.MeasuredS = st.last.Sub(st.first).Seconds()
		res.FPS = float64(res.VideoFrames-1) / res.MeasuredS
	}
	return res
}

func runWHIPServe(args []string) error {
	fs := flag.NewFlagSet("whip-serve", flag.ExitOnError)
	listen := fs.String("listen", "127.0.0.1:8890", "HTTP listen address")
	codec := fs.String("codec", "", "accept only this video codec (vp8, h264, vp9) and Opus; default: Pion's default codecs")
	seconds := fs.Float64("seconds", 0, "exit after this many seconds (0: run until SIGINT/SIGTERM)")
	out := fs.String("out", "", "write the JSON summary to this file instead of stdout")
	simulcast := fs.Bool("simulcast", false, "register the MID and RID header extensions: take a publisher's simulcast layers, counted per rid")
	oneStream := fs.Bool("one-stream", false, "answer without simulcast (no a=rid, no a=simulcast): take one ordinary stream (still counted per rid)")
	opts := &peerOptions{capture: &logCapture{}}
	opts.commonFlags(fs)
	fs.Parse(args)
	if *simulcast || *oneStream {
		opts.videoExtensions = simulcastExtensions
	}
	api, err := opts.newAPI(*codec)
	if err != nil {
		return err
	}
	s := &whipServer{api: api, opts: opts, oneStream: *oneStream, sessions: map[string]*whipSession{}}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	fmt.Fprintf(os.Stderr, "listening http://%s\n", ln.Addr())
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	var limit <-chan time.Time
	if *seconds > 0 {
		limit = time.After(time.Duration(*seconds * float64(time.Second)))
	}
	select {
	case <-limit:
	case v := <-sig:
		logf("whip-serve: %v", v)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	srv.Shutdown(ctx)
	s.mu.Lock()
	for id := range s.sessions {
		s.endLocked(id)
	}
	summary := struct {
		Sessions  []playResult `json:"sessions"`
		Unhandled []string     `json:"unhandled"`
	}{append([]playResult{}, s.ended...), opts.capture.lines()}
	s.mu.Unlock()
	if summary.Unhandled == nil {
		summary.Unhandled = []string{}
	}
	return writeResult(*out, summary)
}

// endLocked closes a session and keeps its figures (frames over first to last frame).
func (s *whipServer) endLocked(id string) bool {
	ss := s.sessions[id]
	if ss == nil {
		return false
	}
	delete(s.sessions, id)
	iceState := ss.pc.ICEConnectionState().String()
	ss.pc.Close()
	res := ss.stats.finish()
	if len(ss.layers) > 0 {
		res.Layers = map[string]playResult{}
		for rid, st := range ss.layers {
			layer := st.finish()
			layer.Unhandled = []string{}
			res.Layers[rid] = layer
			logf("whip-serve %s: layer %s: %d frames %dx%d %.1f fps", id, rid, layer.VideoFrames, layer.Width, layer.Height, layer.FPS)
		}
	}
	res.ICEState = iceState
	res.Unhandled = []string{}
	logf("whip-serve %s: video %s %d frames %dx%d %.1f fps, audio %d packets", id, res.VideoCodec,
		res.VideoFrames, res.Width, res.Height, res.FPS, res.AudioPackets)
	s.ended = append(s.ended, res)
	return true
}

func (s *whipServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	logf("whip-serve: %s %s", r.Method, r.URL.Path)
	switch r.Method {
	case http.MethodPost:
		if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/sdp") {
			http.Error(w, "Content-Type must be application/sdp", http.StatusUnsupportedMediaType)
			return
		}
		offer, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.opts.logSDP("offer "+r.URL.Path, string(offer))
		answer, id, err := s.newSession(string(offer))
		if err != nil {
			logf("whip-serve: session: %v", err)
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.opts.logSDP("answer /whip/session/"+id, answer)
		w.Header().Set("Content-Type", "application/sdp")
		w.Header().Set("Location", "/whip/session/"+id)
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, answer)
	case http.MethodDelete:
		s.mu.Lock()
		ok := s.endLocked(strings.TrimPrefix(r.URL.Path, "/whip/session/"))
		s.mu.Unlock()
		if !ok {
			http.Error(w, "no such session", http.StatusNotFound)
			return
		}
		w.WriteHeader(http.StatusOK)
	default:
		http.Error(w, "method not allowed (no trickle ICE)", http.StatusMethodNotAllowed)
	}
}

func (s *whipServer) newSession(offer string) (string, string, error) {
	pc, err := s.api.NewPeerConnection(webrtc.Configuration{})
	if err != nil {
		return "", "", err
	}
	idb := make([]byte, 8)
	rand.Read(idb)
	id := hex.EncodeToString(idb)
	st := &playStats{firstFrame: make(chan struct{}), res: playResult{StepsMs: map[string]float64{}}}
	start := time.Now()
	session := &whipSession{pc: pc, stats: st, layers: map[string]*playStats{}, start: start}
	trackStates(pc, "whip-serve "+id)
	pc.OnTrack(func(track *webrtc.TrackRemote, _ *webrtc.RTPReceiver) {
		logf("whip-serve %s: track %s %s rid %q ssrc %d", id, track.Kind(), track.Codec().MimeType, track.RID(), track.SSRC())
		if track.Kind() == webrtc.RTPCodecTypeAudio {
			st.readAudio(track)
			return
		}
		into := st
		if rid := track.RID(); rid != "" {
			into = &playStats{firstFrame: make(chan struct{}), res: playResult{StepsMs: map[string]float64{}}}
			s.mu.Lock()
			session.layers[rid] = into
			s.mu.Unlock()
		}
		go requestKeyframes(pc, track, into)
		into.readVideo(track, start)
	})
	if err := pc.SetRemoteDescription(webrtc.SessionDescription{Type: webrtc.SDPTypeOffer, SDP: offer}); err != nil {
		pc.Close()
		return "", "", fmt.Errorf("SetRemoteDescription(offer): %w", err)
	}
	answer, err := pc.CreateAnswer(nil)
	if err != nil {
		pc.Close()
		return "", "", fmt.Errorf("CreateAnswer: %w", err)
	}
	sdp, err := gatherAndDescribe(pc, answer, 10*time.Second)
	if err != nil {
		pc.Close()
		return "", "", err
	}
	if s.oneStream {
		sdp = withoutSimulcast(sdp)
	}
	if !strings.Contains(sdp, "m=video") && !strings.Contains(sdp, "m=audio") {
		pc.Close()
		return "", "", errors.New("offer has no media")
	}
	s.mu.Lock()
	s.sessions[id] = session
	s.mu.Unlock()
	return sdp, id, nil
}

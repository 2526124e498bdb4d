package main

// whip-serve (an extra mode, for checking publishers such as whip-publish or Sluice's
// transport kind whip): a minimal WHIP endpoint that receives, assembles and counts frames
// like whep-play, and reports each session when it ends.

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
	pc    *webrtc.PeerConnection
	stats *playStats
	start time.Time
}

type whipServer struct {
	api      *webrtc.API
	opts     *peerOptions
	mu       sync.Mutex
	sessions map[string]*whipSession
	ended    []playResult
}

func runWHIPServe(args []string) error {
	fs := flag.NewFlagSet("whip-serve", flag.ExitOnError)
	listen := fs.String("listen", "127.0.0.1:8890", "HTTP listen address")
	codec := fs.String("codec", "", "accept only this video codec (vp8, h264, vp9) and Opus; default: Pion's default codecs")
	seconds := fs.Float64("seconds", 0, "exit after this many seconds (0: run until SIGINT/SIGTERM)")
	out := fs.String("out", "", "write the JSON summary to this file instead of stdout")
	opts := &peerOptions{capture: &logCapture{}}
	opts.commonFlags(fs)
	fs.Parse(args)
	api, err := opts.newAPI(*codec)
	if err != nil {
		return err
	}
	s := &whipServer{api: api, opts: opts, sessions: map[string]*whipSession{}}
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
	ss.stats.mu.Lock()
	res := ss.stats.res
	if !ss.stats.first.IsZero() && ss.stats.last.After(ss.stats.first) {
		res.MeasuredS = ss.stats.last.Sub(ss.stats.first).Seconds()
		res.FPS = float64(res.VideoFrames-1) / res.MeasuredS
	}
	ss.stats.mu.Unlock()
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
	st := &playStats{firstFrame: make(chan struct{})}
	start := time.Now()
	trackStates(pc, "whip-serve "+id)
	pc.OnTrack(func(track *webrtc.TrackRemote, _ *webrtc.RTPReceiver) {
		logf("whip-serve %s: track %s %s", id, track.Kind(), track.Codec().MimeType)
		if track.Kind() == webrtc.RTPCodecTypeAudio {
			st.readAudio(track)
			return
		}
		go requestKeyframes(pc, track, st)
		st.readVideo(track, start)
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
	if !strings.Contains(sdp, "m=video") && !strings.Contains(sdp, "m=audio") {
		pc.Close()
		return "", "", errors.New("offer has no media")
	}
	s.mu.Lock()
	s.sessions[id] = &whipSession{pc: pc, stats: st, start: start}
	s.mu.Unlock()
	return sdp, id, nil
}

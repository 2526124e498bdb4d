package main

// whep-serve: a minimal WHEP endpoint that sends a file (looping) to every viewer.

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
	"sync/atomic"
	"syscall"
	"time"

	"github.com/pion/webrtc/v3"
)

type serveResult struct {
	Sessions        int64    `json:"sessions"`
	Connected       int64    `json:"connected"`
	Deleted         int64    `json:"deleted"`
	VideoFramesSent int64    `json:"video_frames_sent"`
	AudioPagesSent  int64    `json:"audio_pages_sent"`
	VideoCodec      string   `json:"video_codec"`
	Unhandled       []string `json:"unhandled"`
}

type whepServer struct {
	api      *webrtc.API
	opts     *peerOptions
	video    *mediaFile
	audio    *mediaFile
	mu       sync.Mutex
	sessions map[string]*serveSession
	res      serveResult
}

type serveSession struct {
	pc     *webrtc.PeerConnection
	cancel context.CancelFunc
}

func runWHEPServe(args []string) error {
	fs := flag.NewFlagSet("whep-serve", flag.ExitOnError)
	listen := fs.String("listen", "127.0.0.1:8889", "HTTP listen address")
	videoPath := fs.String("video", "", "IVF (VP8/VP9) or H.264 Annex-B file (required)")
	audioPath := fs.String("audio", "", "Ogg Opus file")
	fps := fs.Float64("fps", 30, "frame rate for H.264 files")
	seconds := fs.Float64("seconds", 0, "exit after this many seconds (0: run until SIGINT/SIGTERM)")
	out := fs.String("out", "", "write the JSON summary to this file instead of stdout")
	opts := &peerOptions{capture: &logCapture{}}
	opts.commonFlags(fs)
	fs.Parse(args)
	if *videoPath == "" {
		return errors.New("--video is required")
	}
	s := &whepServer{sessions: map[string]*serveSession{}, opts: opts}
	var err error
	if s.video, err = loadVideo(*videoPath, *fps); err != nil {
		return err
	}
	if *audioPath != "" {
		if s.audio, err = loadOpus(*audioPath); err != nil {
			return err
		}
	}
	s.res.VideoCodec = s.video.codec
	if s.api, err = opts.newAPI(s.video.codec); err != nil {
		return err
	}
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
		logf("whep-serve: %v", v)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	srv.Shutdown(ctx)
	s.mu.Lock()
	for id, ss := range s.sessions {
		ss.cancel()
		ss.pc.Close()
		delete(s.sessions, id)
	}
	res := s.res
	s.mu.Unlock()
	res.VideoFramesSent, res.AudioPagesSent = atomic.LoadInt64(&s.res.VideoFramesSent), atomic.LoadInt64(&s.res.AudioPagesSent)
	if res.Unhandled = opts.capture.lines(); res.Unhandled == nil {
		res.Unhandled = []string{}
	}
	return writeResult(*out, res)
}

func (s *whepServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	logf("whep-serve: %s %s", r.Method, r.URL.Path)
	switch r.Method {
	case http.MethodPost:
		s.post(w, r)
	case http.MethodDelete:
		id := strings.TrimPrefix(r.URL.Path, "/whep/session/")
		s.mu.Lock()
		ss := s.sessions[id]
		delete(s.sessions, id)
		if ss != nil {
			s.res.Deleted++
		}
		s.mu.Unlock()
		if ss == nil {
			http.Error(w, "no such session", http.StatusNotFound)
			return
		}
		ss.cancel()
		ss.pc.Close()
		w.WriteHeader(http.StatusOK)
	case http.MethodOptions:
		w.Header().Set("Allow", "POST, DELETE, OPTIONS")
		w.WriteHeader(http.StatusNoContent)
	default:
		http.Error(w, "method not allowed (no trickle ICE)", http.StatusMethodNotAllowed)
	}
}

func (s *whepServer) post(w http.ResponseWriter, r *http.Request) {
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
		logf("whep-serve: session: %v", err)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.opts.logSDP("answer /whep/session/"+id, answer)
	w.Header().Set("Content-Type", "application/sdp")
	w.Header().Set("Location", "/whep/session/"+id)
	w.WriteHeader(http.StatusCreated)
	io.WriteString(w, answer)
}

// newSession answers an offer with this viewer's own tracks; sending starts once connected.
func (s *whepServer) newSession(offer string) (string, string, error) {
	pc, err := s.api.NewPeerConnection(webrtc.Configuration{})
	if err != nil {
		return "", "", err
	}
	idb := make([]byte, 8)
	rand.Read(idb)
	id := hex.EncodeToString(idb)
	ctx, cancel := context.WithCancel(context.Background())
	fail := func(err error) (string, string, error) { cancel(); pc.Close(); return "", "", err }

	type stream struct {
		m     *mediaFile
		track *webrtc.TrackLocalStaticSample
		count *int64
	}
	var streams []stream
	for _, m := range []*mediaFile{s.video, s.audio} {
		if m == nil {
			continue
		}
		track, err := webrtc.NewTrackLocalStaticSample(m.capability(), m.codec, "pionpeer-"+id)
		if err != nil {
			return fail(err)
		}
		sender, err := pc.AddTrack(track)
		if err != nil {
			return fail(err)
		}
		go drainRTCP(sender)
		count := &s.res.VideoFramesSent
		if m == s.audio {
			count = &s.res.AudioPagesSent
		}
		streams = append(streams, stream{m, track, count})
	}
	states := trackStates(pc, "whep-serve "+id)
	go func() {
		select {
		case <-states.connected:
		case <-states.failed:
			cancel()
			return
		case <-ctx.Done():
			return
		case <-time.After(30 * time.Second):
			logf("whep-serve %s: not connected within 30 s, closing", id)
			cancel()
			pc.Close()
			return
		}
		s.mu.Lock()
		s.res.Connected++
		s.mu.Unlock()
		for _, st := range streams {
			go sendLoop(ctx, st.track, st.m, st.count)
		}
		select {
		case <-states.failed:
			cancel()
		case <-ctx.Done():
		}
	}()
	if err := pc.SetRemoteDescription(webrtc.SessionDescription{Type: webrtc.SDPTypeOffer, SDP: offer}); err != nil {
		return fail(fmt.Errorf("SetRemoteDescription(offer): %w", err))
	}
	answer, err := pc.CreateAnswer(nil)
	if err != nil {
		return fail(fmt.Errorf("CreateAnswer: %w", err))
	}
	sdp, err := gatherAndDescribe(pc, answer, 10*time.Second)
	if err != nil {
		return fail(err)
	}
	s.mu.Lock()
	s.sessions[id] = &serveSession{pc: pc, cancel: cancel}
	s.res.Sessions++
	s.mu.Unlock()
	return sdp, id, nil
}

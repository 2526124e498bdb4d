package main

// whip-publish: send pre-encoded files to a WHIP endpoint.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pion/webrtc/v3"
)

type publishResult struct {
	VideoFramesSent int64    `json:"video_frames_sent"`
	AudioPagesSent  int64    `json:"audio_pages_sent"`
	VideoCodec      string   `json:"video_codec"`
	ICEState        string   `json:"ice_state"`
	ConnectMs       int64    `json:"connect_ms"`
	SentS           float64  `json:"sent_s"`
	DeleteStatus    int      `json:"delete_status"`
	Unhandled       []string `json:"unhandled"`
}

// addSendTrack adds a sendonly transceiver with a sample track for the file.
func addSendTrack(pc *webrtc.PeerConnection, m *mediaFile, id string) (*webrtc.TrackLocalStaticSample, error) {
	track, err := webrtc.NewTrackLocalStaticSample(m.capability(), id, "pionpeer")
	if err != nil {
		return nil, err
	}
	tr, err := pc.AddTransceiverFromTrack(track, webrtc.RTPTransceiverInit{Direction: webrtc.RTPTransceiverDirectionSendonly})
	if err != nil {
		return nil, err
	}
	go drainRTCP(tr.Sender())
	return track, nil
}

func runWHIPPublish(args []string) error {
	fs := flag.NewFlagSet("whip-publish", flag.ExitOnError)
	endpoint := fs.String("url", "", "WHIP endpoint URL (required)")
	token := fs.String("token", "", "bearer token")
	seconds := fs.Float64("seconds", 10, "seconds to send after the connection is up")
	videoPath := fs.String("video", "", "IVF (VP8/VP9) or H.264 Annex-B file (required)")
	audioPath := fs.String("audio", "", "Ogg Opus file")
	fps := fs.Float64("fps", 30, "frame rate for H.264 files")
	out := fs.String("out", "", "write the JSON result to this file instead of stdout")
	opts := &peerOptions{capture: &logCapture{}}
	opts.commonFlags(fs)
	fs.Parse(args)
	if *endpoint == "" || *videoPath == "" {
		return errors.New("--url and --video are required")
	}
	watchdog(time.Duration(*seconds*float64(time.Second)) + 60*time.Second)
	video, err := loadVideo(*videoPath, *fps)
	if err != nil {
		return err
	}
	var audio *mediaFile
	if *audioPath != "" {
		if audio, err = loadOpus(*audioPath); err != nil {
			return err
		}
	}
	logf("video %s: %d frames (%s); audio: %v", video.path, len(video.frames), video.codec, *audioPath)
	api, err := opts.newAPI(video.codec)
	if err != nil {
		return err
	}
	pc, err := api.NewPeerConnection(webrtc.Configuration{})
	if err != nil {
		return err
	}
	defer pc.Close()
	vtrack, err := addSendTrack(pc, video, "video")
	if err != nil {
		return err
	}
	var atrack *webrtc.TrackLocalStaticSample
	if audio != nil {
		if atrack, err = addSendTrack(pc, audio, "audio"); err != nil {
			return err
		}
	}
	states := trackStates(pc, "whip-publish")
	offer, err := pc.CreateOffer(nil)
	if err != nil {
		return err
	}
	sdp, err := gatherAndDescribe(pc, offer, 10*time.Second)
	if err != nil {
		return err
	}
	start := time.Now()
	answer, location, err := opts.postOffer(*endpoint, *token, sdp)
	if err != nil {
		return err
	}
	logf("session %s", location)
	res := publishResult{VideoCodec: video.codec}
	finish := func(failure error) error {
		res.ICEState = states.state()
		res.DeleteStatus = deleteSession(location, *token)
		pc.Close()
		if res.Unhandled = opts.capture.lines(); res.Unhandled == nil {
			res.Unhandled = []string{}
		}
		if err := writeResult(*out, res); err != nil {
			return err
		}
		return opts.capture.explain(failure)
	}
	if err := pc.SetRemoteDescription(webrtc.SessionDescription{Type: webrtc.SDPTypeAnswer, SDP: answer}); err != nil {
		return finish(fmt.Errorf("SetRemoteDescription(answer): %w", err))
	}
	select {
	case <-states.connected:
	case <-states.failed:
		return finish(fmt.Errorf("peer connection failed before connecting (ICE %s)", states.state()))
	case <-time.After(15 * time.Second):
		return finish(fmt.Errorf("not connected within 15 s (ICE %s)", states.state()))
	}
	res.ConnectMs = time.Since(start).Milliseconds()
	sendStart := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(*seconds*float64(time.Second)))
	defer cancel()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); sendLoop(ctx, vtrack, video, &res.VideoFramesSent) }()
	if atrack != nil {
		wg.Add(1)
		go func() { defer wg.Done(); sendLoop(ctx, atrack, audio, &res.AudioPagesSent) }()
	}
	var failure error
	select {
	case <-ctx.Done():
	case <-states.failed:
		failure = fmt.Errorf("peer connection failed while sending (ICE %s)", states.state())
		cancel()
	}
	wg.Wait()
	res.SentS = time.Since(sendStart).Seconds()
	logf("sent %d video frames, %d audio packets in %.1f s", atomic.LoadInt64(&res.VideoFramesSent), atomic.LoadInt64(&res.AudioPagesSent), res.SentS)
	return finish(failure)
}

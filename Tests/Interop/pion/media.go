package main

// Pre-encoded media files, read once into memory and sent (looping) at their own pace:
// IVF (VP8/VP9) with ivfreader, H.264 Annex-B with h264reader, Opus in Ogg.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"time"

	"github.com/pion/webrtc/v3"
	"github.com/pion/webrtc/v3/pkg/media"
	"github.com/pion/webrtc/v3/pkg/media/h264reader"
	"github.com/pion/webrtc/v3/pkg/media/ivfreader"
)

type frame struct {
	data []byte
	dur  time.Duration
}

// mediaFile is a whole file's frames (video access units or Opus packets).
type mediaFile struct {
	path   string
	codec  string // vp8, vp9, h264, opus
	frames []frame
}

func (m *mediaFile) capability() webrtc.RTPCodecCapability {
	switch m.codec {
	case "vp8":
		return webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypeVP8, ClockRate: 90000, RTCPFeedback: videoFeedback}
	case "vp9":
		return webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypeVP9, ClockRate: 90000, SDPFmtpLine: "profile-id=0", RTCPFeedback: videoFeedback}
	case "h264":
		return webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypeH264, ClockRate: 90000,
			SDPFmtpLine: "level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f", RTCPFeedback: videoFeedback}
	}
	return opusCodec.RTPCodecCapability
}

// loadVideo reads an IVF (VP8/VP9) or H.264 Annex-B file; fps paces H.264 (and IVF files
// whose timestamps say nothing).
func loadVideo(path string, fps float64) (*mediaFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if fps <= 0 {
		fps = 30
	}
	def := time.Duration(float64(time.Second) / fps)
	var m *mediaFile
	if bytes.HasPrefix(data, []byte("DKIF")) {
		m, err = loadIVF(data, def)
	} else {
		m, err = loadH264(data, def)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(m.frames) == 0 {
		return nil, fmt.Errorf("%s: no frames", path)
	}
	m.path = path
	return m, nil
}

func loadIVF(data []byte, def time.Duration) (*mediaFile, error) {
	r, hdr, err := ivfreader.NewWith(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	m := &mediaFile{}
	switch hdr.FourCC {
	case "VP80":
		m.codec = "vp8"
	case "VP90":
		m.codec = "vp9"
	default:
		return nil, fmt.Errorf("IVF FourCC %q: only VP80 and VP90 are supported", hdr.FourCC)
	}
	// Frame timestamps count in units of TimebaseNumerator/TimebaseDenominator seconds
	// (GStreamer's avmux_ivf writes 1/90000; libvpx writes 1/fps).
	unit := time.Duration(0)
	if hdr.TimebaseDenominator > 0 {
		unit = time.Duration(float64(time.Second) * float64(hdr.TimebaseNumerator) / float64(hdr.TimebaseDenominator))
	}
	var stamps []uint64
	for {
		f, fh, err := r.ParseNextFrame()
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			break
		} else if err != nil {
			return nil, err
		}
		m.frames = append(m.frames, frame{data: f})
		stamps = append(stamps, fh.Timestamp)
	}
	for i := range m.frames {
		d := def
		if i+1 < len(stamps) && stamps[i+1] > stamps[i] && unit > 0 {
			d = time.Duration(stamps[i+1]-stamps[i]) * unit
		} else if i > 0 {
			d = m.frames[i-1].dur
		}
		if d <= 0 || d > time.Second {
			d = def
		}
		m.frames[i].dur = d
	}
	return m, nil
}

// loadH264 groups the NAL units of an Annex-B stream into access units: a new one starts at
// an AUD/SPS/PPS/SEI after a slice, or at a slice whose first_mb_in_slice is 0.
func loadH264(data []byte, def time.Duration) (*mediaFile, error) {
	r, err := h264reader.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	m := &mediaFile{codec: "h264"}
	var au []byte
	hasSlice := false
	flush := func() {
		if len(au) > 0 && hasSlice {
			m.frames = append(m.frames, frame{data: au, dur: def})
		}
		au, hasSlice = nil, false
	}
	for {
		nal, err := r.NextNAL()
		if errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, err
		}
		if len(nal.Data) == 0 {
			continue
		}
		t := nal.Data[0] & 0x1f
		isSlice := t >= 1 && t <= 5
		firstMb := isSlice && len(nal.Data) > 1 && nal.Data[1]&0x80 != 0 // ue(v) first_mb_in_slice == 0
		if hasSlice && ((t >= 6 && t <= 9) || firstMb) {
			flush()
		}
		au = append(au, 0, 0, 0, 1)
		au = append(au, nal.Data...)
		hasSlice = hasSlice || isSlice
	}
	flush()
	return m, nil
}

// loadOpus reads the Opus packets of an Ogg file. Pion's oggreader returns a page's payload
// as one blob, which is only right when every page holds exactly one packet (GStreamer's
// oggmux max-page-delay=1); this splits pages into packets with the lacing values instead.
func loadOpus(path string) (*mediaFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m := &mediaFile{path: path, codec: "opus"}
	var pkt []byte
	for off := 0; off < len(data); {
		if len(data)-off < 27 || string(data[off:off+4]) != "OggS" {
			return nil, fmt.Errorf("%s: bad Ogg page at byte %d", path, off)
		}
		nseg := int(data[off+26])
		lacing := data[off+27 : off+27+nseg]
		p := off + 27 + nseg
		for _, l := range lacing {
			if p+int(l) > len(data) {
				return nil, fmt.Errorf("%s: truncated Ogg page", path)
			}
			pkt = append(pkt, data[p:p+int(l)]...)
			p += int(l)
			if l < 255 {
				if !bytes.HasPrefix(pkt, []byte("OpusHead")) && !bytes.HasPrefix(pkt, []byte("OpusTags")) && len(pkt) > 0 {
					m.frames = append(m.frames, frame{data: pkt, dur: opusDuration(pkt)})
				}
				pkt = nil
			}
		}
		off = p
	}
	if len(m.frames) == 0 {
		return nil, fmt.Errorf("%s: no Opus packets", path)
	}
	return m, nil
}

// opusDuration reads a packet's duration from its TOC byte (RFC 6716 3.1).
func opusDuration(p []byte) time.Duration {
	cfg := p[0] >> 3
	var frame time.Duration
	switch {
	case cfg < 12:
		frame = []time.Duration{10, 20, 40, 60}[cfg%4] * time.Millisecond
	case cfg < 16:
		frame = []time.Duration{10, 20}[cfg%2] * time.Millisecond
	default:
		frame = []time.Duration{2500, 5000, 10000, 20000}[cfg%4] * time.Microsecond
	}
	n := 1
	switch p[0] & 3 {
	case 1, 2:
		n = 2
	case 3:
		if len(p) > 1 {
			n = int(p[1] & 0x3f)
		}
	}
	if n == 0 {
		n = 1
	}
	return frame * time.Duration(n)
}

// sendLoop writes the file's frames to the track at their own pace, looping, until ctx ends.
// Each call has its own cursor, so every viewer gets the file from its start.
func sendLoop(ctx context.Context, track *webrtc.TrackLocalStaticSample, m *mediaFile, sent *int64) {
	next := time.Now()
	for i := 0; ; i = (i + 1) % len(m.frames) {
		f := m.frames[i]
		if err := track.WriteSample(media.Sample{Data: f.data, Duration: f.dur}); err != nil {
			if errors.Is(err, io.ErrClosedPipe) {
				return
			}
			logf("%s: WriteSample: %v", m.codec, err)
		} else {
			atomic.AddInt64(sent, 1)
		}
		next = next.Add(f.dur)
		if d := time.Until(next); d < -time.Second {
			next = time.Now() // fell far behind: do not burst to catch up
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Until(next)):
		}
	}
}

// drainRTCP reads a sender's RTCP so the interceptors (NACK responder, reports) run.
func drainRTCP(s *webrtc.RTPSender) {
	buf := make([]byte, 1500)
	for {
		if _, _, err := s.Read(buf); err != nil {
			return
		}
	}
}

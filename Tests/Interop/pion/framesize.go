package main

// Frame sizes from keyframes: VP8 keyframe header, VP9 uncompressed header, H.264 SPS.

import (
	"bytes"
	"errors"
)

// vp8KeyframeSize returns the size of a VP8 keyframe (RFC 6386 9.1), ok=false for interframes.
func vp8KeyframeSize(f []byte) (w, h int, ok bool) {
	if len(f) < 10 || f[0]&1 != 0 || f[3] != 0x9d || f[4] != 0x01 || f[5] != 0x2a {
		return 0, 0, false
	}
	w = int(uint16(f[6])|uint16(f[7])<<8) & 0x3fff
	h = int(uint16(f[8])|uint16(f[9])<<8) & 0x3fff
	return w, h, true
}

// bitReader reads big-endian bits, with H.264 exp-Golomb codes.
type bitReader struct {
	b   []byte
	pos int // in bits
	err error
}

var errShort = errors.New("bitstream too short")

func (r *bitReader) u(n int) uint32 {
	var v uint32
	for i := 0; i < n; i++ {
		if r.pos >= len(r.b)*8 {
			r.err = errShort
			return 0
		}
		v = v<<1 | uint32(r.b[r.pos/8]>>(7-uint(r.pos%8))&1)
		r.pos++
	}
	return v
}

func (r *bitReader) ue() uint32 {
	zeros := 0
	for r.u(1) == 0 {
		if r.err != nil || zeros > 31 {
			r.err = errShort
			return 0
		}
		zeros++
	}
	return (1<<uint(zeros) - 1) + r.u(zeros)
}

func (r *bitReader) se() int32 {
	k := r.ue()
	if k&1 == 1 {
		return int32((k + 1) / 2)
	}
	return -int32(k / 2)
}

// vp9KeyframeSize parses a VP9 uncompressed header (VP9 bitstream spec 6.2); ok=false when
// the frame is not a keyframe.
func vp9KeyframeSize(f []byte) (w, h int, ok bool) {
	r := &bitReader{b: f}
	if r.u(2) != 2 { // frame_marker
		return 0, 0, false
	}
	profile := r.u(1)
	profile |= r.u(1) << 1
	if profile == 3 {
		r.u(1) // reserved_zero
	}
	if r.u(1) == 1 { // show_existing_frame
		return 0, 0, false
	}
	if r.u(1) != 0 { // frame_type: 0 = KEY_FRAME
		return 0, 0, false
	}
	r.u(1) // show_frame
	r.u(1) // error_resilient_mode
	if r.u(24) != 0x498342 {
		return 0, 0, false
	}
	if profile >= 2 {
		r.u(1) // ten_or_twelve_bit
	}
	if cs := r.u(3); cs != 7 { // color_space != CS_RGB
		r.u(1) // color_range
		if profile == 1 || profile == 3 {
			r.u(3) // subsampling_x, subsampling_y, reserved_zero
		}
	} else if profile == 1 || profile == 3 {
		r.u(1) // reserved_zero
	}
	w = int(r.u(16)) + 1
	h = int(r.u(16)) + 1
	return w, h, r.err == nil
}

// annexBNALs splits an Annex-B byte stream into NAL units (without start codes).
func annexBNALs(b []byte) [][]byte {
	var nals [][]byte
	start := -1
	for i := 0; i+3 <= len(b); {
		if b[i] == 0 && b[i+1] == 0 && b[i+2] == 1 {
			if start >= 0 {
				nals = append(nals, bytes.TrimRight(b[start:i], "\x00"))
			}
			i += 3
			start = i
			continue
		}
		i++
	}
	if start >= 0 && start < len(b) {
		nals = append(nals, b[start:])
	}
	return nals
}

// h264KeyframeSize looks for an SPS in an Annex-B access unit and returns the picture size;
// ok=false when the access unit has no SPS (the sample builder's H.264 output puts the
// STAP-A's SPS/PPS in front of the IDR slice).
func h264KeyframeSize(au []byte) (w, h int, idr, ok bool) {
	for _, nal := range annexBNALs(au) {
		if len(nal) == 0 {
			continue
		}
		switch nal[0] & 0x1f {
		case 5:
			idr = true
		case 7:
			if sw, sh, err := parseSPS(nal); err == nil {
				w, h, ok = sw, sh, true
			}
		}
	}
	return w, h, idr, ok
}

// unescapeRBSP removes emulation prevention bytes (00 00 03 -> 00 00).
func unescapeRBSP(b []byte) []byte {
	out := make([]byte, 0, len(b))
	zeros := 0
	for _, c := range b {
		if zeros >= 2 && c == 3 {
			zeros = 0
			continue
		}
		if c == 0 {
			zeros++
		} else {
			zeros = 0
		}
		out = append(out, c)
	}
	return out
}

// parseSPS returns the cropped picture size from an H.264 SPS NAL (ITU-T H.264 7.3.2.1.1).
func parseSPS(nal []byte) (int, int, error) {
	r := &bitReader{b: unescapeRBSP(nal[1:])}
	profile := r.u(8)
	r.u(8) // constraint flags, reserved
	r.u(8) // level_idc
	r.ue() // seq_parameter_set_id
	chroma := uint32(1)
	separateColourPlane := uint32(0)
	switch profile {
	case 100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135:
		chroma = r.ue()
		if chroma == 3 {
			separateColourPlane = r.u(1)
		}
		r.ue()           // bit_depth_luma_minus8
		r.ue()           // bit_depth_chroma_minus8
		r.u(1)           // qpprime_y_zero_transform_bypass_flag
		if r.u(1) == 1 { // seq_scaling_matrix_present_flag
			n := 8
			if chroma == 3 {
				n = 12
			}
			for i := 0; i < n; i++ {
				if r.u(1) == 1 { // seq_scaling_list_present_flag[i]
					size := 16
					if i >= 6 {
						size = 64
					}
					last, next := int32(8), int32(8)
					for j := 0; j < size; j++ {
						if next != 0 {
							next = (last + r.se() + 256) % 256
						}
						if next != 0 {
							last = next
						}
					}
				}
			}
		}
	}
	r.ue()          // log2_max_frame_num_minus4
	switch r.ue() { // pic_order_cnt_type
	case 0:
		r.ue() // log2_max_pic_order_cnt_lsb_minus4
	case 1:
		r.u(1) // delta_pic_order_always_zero_flag
		r.se() // offset_for_non_ref_pic
		r.se() // offset_for_top_to_bottom_field
		n := r.ue()
		for i := uint32(0); i < n && r.err == nil; i++ {
			r.se()
		}
	}
	r.ue() // max_num_ref_frames
	r.u(1) // gaps_in_frame_num_value_allowed_flag
	wMbs := r.ue() + 1
	hMaps := r.ue() + 1
	frameMbsOnly := r.u(1)
	if frameMbsOnly == 0 {
		r.u(1) // mb_adaptive_frame_field_flag
	}
	r.u(1) // direct_8x8_inference_flag
	w := int(wMbs) * 16
	h := int(2-frameMbsOnly) * int(hMaps) * 16
	if r.u(1) == 1 { // frame_cropping_flag
		left, right, top, bottom := r.ue(), r.ue(), r.ue(), r.ue()
		cropX, cropY := uint32(1), 2-frameMbsOnly
		if separateColourPlane == 0 && chroma != 0 {
			subW, subH := uint32(2), uint32(1)
			if chroma == 3 {
				subW = 1
			}
			if chroma == 1 {
				subH = 2
			}
			cropX, cropY = subW, subH*(2-frameMbsOnly)
		}
		w -= int((left + right) * cropX)
		h -= int((top + bottom) * cropY)
	}
	if r.err != nil {
		return 0, 0, r.err
	}
	return w, h, nil
}

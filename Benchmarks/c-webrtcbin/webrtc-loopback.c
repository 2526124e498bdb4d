/* A minimal C reference for Sluice's WebRTC loopback (Benchmarks/c-compare.sh).
 *
 * The same graph Sluice builds for a loopback file with a test capture, a realtime-preset
 * encoder and a stats sink (GraphBuilder.buildSend/buildReceive, EncoderPresets,
 * DefaultElements, PipelineRun.buildLoopback/negotiate):
 *
 *   videotestsrc is-live=true pattern=P ! capsfilter video/x-raw,WxH,fps,I420
 *     ! queue max-size-buffers=3 max-size-bytes=0 max-size-time=0 leaky=downstream
 *     ! ENCODER (realtime preset) [! capsfilter h264 caps ! h264parse config-interval=-1
 *       ! capsfilter stream-format=avc,alignment=au]
 *     ! PAYLOADER (mtu=1200, pt, ...) ! capsfilter (RTP caps) ! webrtcbin name=send
 *   webrtcbin name=recv  --pad-added-->  DEPAY [! h264parse] ! DECODER ! videoconvert
 *     ! fakesink sync=false async=false
 *
 * Both webrtcbins: bundle-policy max-bundle, latency 50, libnice upnp off, 127.0.0.1 added
 * with nice_agent_add_local_address before negotiation. Offer/answer through promises,
 * candidates handed straight to the other peer (queued until its remote description is
 * set). Sluice's loss-repair defaults: do-nack on every transceiver, rtcp-fb nack/pli/fir in
 * the RTP caps, RTCP at least every 100 ms, depayloaders that request and wait for keyframes.
 * Counts decoded frames (probe on the decoder's src pad), and stamps every frame as
 * Plugins/framestamp does: written after the capture capsfilter, read after videoconvert;
 * latency percentiles leave out the first 2 s after the first stamp read.
 *
 * Usage: webrtc-loopback CODEC(vp8|h264) WIDTH HEIGHT FPS KBPS SECONDS [PATTERN [VP8_THREADS]]
 * (VP8_THREADS defaults to 1, the realtime preset's value on 2-core machines.)
 * Prints one JSON line: frames, duration_s, time_to_first_frame_ms, cpu_seconds, playing_ms
 * (when the pipeline reached PLAYING), key_ms, and steady_frames over steady_s: the frames
 * decoded from 2 s after the first one to the end (the delivered rate without the start).
 * With WARM_KEY=1 in the environment, GStreamer's one-time DTLS key is made first (a
 * dtlssrtpdec, as Sluice's DTLSWarmUp does) and key_ms says when it was ready: the first frame
 * minus the later of key_ms and playing_ms is this graph's start-up without the key, the
 * reference for Sluice's `from the DTLS key` figure (Benchmarks/startup.py, guard.py).
 * No framestamps: latency is not measured here.
 */
#include <gst/gst.h>
#include <gst/sdp/sdp.h>
#define GST_USE_UNSTABLE_API
#include <gst/webrtc/webrtc.h>
#include <gst/video/video.h>
#include <math.h>
#include <nice/agent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static const char *codec;
static GstElement *pipeline, *sendbin, *recvbin;
static GMainLoop *loop;
static gint64 start_us;
static volatile gint frames = 0;
static gint64 first_frame_us = 0;
static GMutex lock;

typedef struct {
  GstElement *bin;
  gboolean remote_set;
  GPtrArray *pending; /* "mline\tcandidate" strings */
} Peer;
static Peer send_peer, recv_peer;

static double now_s(void) { return (g_get_monotonic_time() - start_us) / 1e6; }

static void fail(const char *what) {
  fprintf(stderr, "webrtc-loopback: %s\n", what);
  exit(1);
}

static GstElement *make(const char *factory, const char *name) {
  GstElement *e = gst_element_factory_make(factory, name);
  if (!e) { fprintf(stderr, "missing element %s\n", factory); exit(1); }
  return e;
}

/* Sets properties the way Sluice does (from strings, skipping unknown ones). */
static void setp(GstElement *e, const char *k, const char *v) {
  if (!g_object_class_find_property(G_OBJECT_GET_CLASS(e), k)) return;
  gst_util_set_object_arg(G_OBJECT(e), k, v);
}

static void add_candidate(Peer *to, guint mline, const char *cand) {
  g_mutex_lock(&lock);
  if (!to->remote_set) {
    g_ptr_array_add(to->pending, g_strdup_printf("%u\t%s", mline, cand));
    g_mutex_unlock(&lock);
    return;
  }
  g_mutex_unlock(&lock);
  g_signal_emit_by_name(to->bin, "add-ice-candidate", mline, cand);
}

static void remote_set(Peer *p) {
  g_mutex_lock(&lock);
  p->remote_set = TRUE;
  GPtrArray *pending = p->pending;
  p->pending = g_ptr_array_new_with_free_func(g_free);
  g_mutex_unlock(&lock);
  for (guint i = 0; i < pending->len; i++) {
    char *s = g_ptr_array_index(pending, i);
    char *tab = strchr(s, '\t');
    *tab = 0;
    g_signal_emit_by_name(p->bin, "add-ice-candidate", (guint)atoi(s), tab + 1);
  }
  g_ptr_array_free(pending, TRUE);
}

static void on_candidate(GstElement *bin, guint mline, gchar *cand, gpointer other) {
  (void)bin;
  add_candidate((Peer *)other, mline, cand);
}

static GstWebRTCSessionDescription *reply_sdp(GstPromise *promise, const char *field) {
  if (gst_promise_wait(promise) != GST_PROMISE_RESULT_REPLIED) fail("promise not replied");
  const GstStructure *r = gst_promise_get_reply(promise);
  GstWebRTCSessionDescription *d = NULL;
  gst_structure_get(r, field, GST_TYPE_WEBRTC_SESSION_DESCRIPTION, &d, NULL);
  if (!d) fail(field);
  gst_promise_unref(promise);
  return d;
}

static void on_send_remote_set(GstPromise *p, gpointer u) {
  (void)u;
  gst_promise_unref(p);
  remote_set(&send_peer);
}

static void on_answer(GstPromise *promise, gpointer u) {
  (void)u;
  GstWebRTCSessionDescription *answer = reply_sdp(promise, "answer");
  g_signal_emit_by_name(recvbin, "set-local-description", answer, NULL);
  GstPromise *p = gst_promise_new_with_change_func(on_send_remote_set, NULL, NULL);
  g_signal_emit_by_name(sendbin, "set-remote-description", answer, p);
  gst_webrtc_session_description_free(answer);
}

static void on_recv_remote_set(GstPromise *p, gpointer u) {
  (void)u;
  gst_promise_unref(p);
  remote_set(&recv_peer);
  GstPromise *a = gst_promise_new_with_change_func(on_answer, NULL, NULL);
  g_signal_emit_by_name(recvbin, "create-answer", NULL, a);
}

static void on_offer(GstPromise *promise, gpointer u) {
  (void)u;
  GstWebRTCSessionDescription *offer = reply_sdp(promise, "offer");
  g_signal_emit_by_name(sendbin, "set-local-description", offer, NULL);
  GstPromise *p = gst_promise_new_with_change_func(on_recv_remote_set, NULL, NULL);
  g_signal_emit_by_name(recvbin, "set-remote-description", offer, p);
  gst_webrtc_session_description_free(offer);
}


/* ---- framestamp, as Plugins/framestamp writes and reads it (3 rows of 32 squares on the
 * luma plane at (0,0): frame number, 48-bit CLOCK_MONOTONIC µs, CRC-16/CCITT-FALSE) ---- */
static int stamp_block = 16;
static guint32 stamp_number = 0;
static GArray *latencies_ms;          /* double, after the warm-up */
static gint64 first_read_us = 0;
static volatile gint stamps_unreadable = 0;
#define WARMUP_US 2000000

static guint16 crc16(const guint8 *b, int n) {
  guint16 crc = 0xFFFF;
  for (int i = 0; i < n; i++) {
    crc ^= (guint16)b[i] << 8;
    for (int k = 0; k < 8; k++) crc = (crc & 0x8000) ? (guint16)((crc << 1) ^ 0x1021) : (guint16)(crc << 1);
  }
  return crc;
}

static guint16 stamp_crc(guint32 number, guint64 t) {
  guint8 b[10] = {number >> 24, number >> 16, number >> 8, number, t >> 40, t >> 32, t >> 24, t >> 16, t >> 8, t};
  return crc16(b, 10);
}

static GstPadProbeReturn write_stamp(GstPad *pad, GstPadProbeInfo *info, gpointer u) {
  (void)u;
  GstBuffer *buf = gst_buffer_make_writable(GST_PAD_PROBE_INFO_BUFFER(info));
  GST_PAD_PROBE_INFO_DATA(info) = buf;
  GstCaps *caps = gst_pad_get_current_caps(pad);
  GstVideoInfo vi;
  gboolean ok = caps && gst_video_info_from_caps(&vi, caps);
  if (caps) gst_caps_unref(caps);
  GstVideoFrame f;
  if (!ok || !gst_video_frame_map(&f, &vi, buf, GST_MAP_WRITE)) return GST_PAD_PROBE_OK;
  guint64 t = (guint64)g_get_monotonic_time() & ((1ULL << 48) - 1);
  guint32 number = stamp_number++;
  guint32 w[3] = {number, (guint32)(t >> 16), (guint32)((t & 0xFFFF) << 16) | stamp_crc(number, t)};
  int b = stamp_block, stride = GST_VIDEO_FRAME_PLANE_STRIDE(&f, 0);
  guint8 *y = GST_VIDEO_FRAME_PLANE_DATA(&f, 0);
  for (int r = 0; r < 3; r++)
    for (int py = r * b; py < (r + 1) * b; py++)
      for (int bit = 0; bit < 32; bit++)
        memset(y + py * stride + bit * b, (w[r] >> (31 - bit)) & 1 ? 235 : 16, b);
  for (int p = 1; p <= 2; p++) {  /* neutral chroma under the pattern */
    int cs = GST_VIDEO_FRAME_PLANE_STRIDE(&f, p);
    guint8 *c = GST_VIDEO_FRAME_PLANE_DATA(&f, p);
    for (int cy = 0; cy < (3 * b + 1) / 2; cy++) memset(c + cy * cs, 128, (32 * b + 1) / 2);
  }
  gst_video_frame_unmap(&f);
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn read_stamp(GstPad *pad, GstPadProbeInfo *info, gpointer u) {
  (void)u;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER(info);
  GstCaps *caps = gst_pad_get_current_caps(pad);
  GstVideoInfo vi;
  gboolean ok = caps && gst_video_info_from_caps(&vi, caps);
  if (caps) gst_caps_unref(caps);
  GstVideoFrame f;
  if (!ok || !gst_video_frame_map(&f, &vi, buf, GST_MAP_READ)) return GST_PAD_PROBE_OK;
  int b = stamp_block, inset = b / 4, stride = GST_VIDEO_FRAME_PLANE_STRIDE(&f, 0);
  const guint8 *y = GST_VIDEO_FRAME_PLANE_DATA(&f, 0);
  int n = (b - 2 * inset) * (b - 2 * inset);
  guint32 w[3] = {0, 0, 0};
  for (int r = 0; r < 3; r++)
    for (int bit = 0; bit < 32; bit++) {
      long sum = 0;
      for (int py = r * b + inset; py < (r + 1) * b - inset; py++)
        for (int px = bit * b + inset; px < (bit + 1) * b - inset; px++) sum += y[py * stride + px];
      w[r] = (w[r] << 1) | (2 * sum > (long)(235 + 16) * n ? 1 : 0);
    }
  gst_video_frame_unmap(&f);
  guint64 t = ((guint64)w[1] << 16) | (w[2] >> 16);
  if ((guint16)(w[2] & 0xFFFF) != stamp_crc(w[0], t)) { g_atomic_int_inc(&stamps_unreadable); return GST_PAD_PROBE_OK; }
  gint64 now = g_get_monotonic_time();
  gint64 lat = (gint64)(((guint64)now - t) & ((1ULL << 48) - 1));
  g_mutex_lock(&lock);
  if (!first_read_us) first_read_us = now;
  if (now - first_read_us >= WARMUP_US) { double ms = lat / 1000.0; g_array_append_val(latencies_ms, ms); }
  g_mutex_unlock(&lock);
  return GST_PAD_PROBE_OK;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of sorted values. */
static double percentile(const double *v, guint n, double p) {
  if (!n) return -1;
  guint rank = (guint)ceil(p / 100.0 * n);
  if (rank < 1) rank = 1;
  if (rank > n) rank = n;
  return v[rank - 1];
}

/* The steady window: frames decoded from STEADY_AFTER seconds after the first one (the burst
 * of frames held while the connection came up is over by then) to the end. */
#define STEADY_AFTER_US (2 * G_USEC_PER_SEC)
static gint64 steady_from_us = 0;
static gint steady_from_frames = 0;

static GstPadProbeReturn count_frame(GstPad *pad, GstPadProbeInfo *info, gpointer u) {
  (void)pad; (void)info; (void)u;
  gint n = g_atomic_int_add(&frames, 1);
  if (n == 0) first_frame_us = g_get_monotonic_time();
  else if (!steady_from_us && g_get_monotonic_time() - first_frame_us >= STEADY_AFTER_US) {
    steady_from_frames = n;
    steady_from_us = g_get_monotonic_time();
  }
  return GST_PAD_PROBE_OK;
}

static void on_pad_added(GstElement *bin, GstPad *pad, gpointer u) {
  (void)bin; (void)u;
  if (GST_PAD_DIRECTION(pad) != GST_PAD_SRC) return;
  gboolean h264 = strcmp(codec, "h264") == 0;
  GstElement *depay = make(h264 ? "rtph264depay" : "rtpvp8depay", NULL);
  setp(depay, "request-keyframe", "true");
  setp(depay, "wait-for-keyframe", "true");
  GstElement *parse = h264 ? make("h264parse", NULL) : NULL;
  GstElement *dec = make(h264 ? "avdec_h264" : "vp8dec", NULL);
  GstElement *conv = make("videoconvert", NULL);
  GstElement *sink = make("fakesink", NULL);
  setp(sink, "sync", "false");
  setp(sink, "async", "false");
  gst_bin_add_many(GST_BIN(pipeline), depay, dec, conv, sink, NULL);
  if (parse) gst_bin_add(GST_BIN(pipeline), parse);
  gboolean ok = parse ? gst_element_link_many(depay, parse, dec, conv, sink, NULL)
                      : gst_element_link_many(depay, dec, conv, sink, NULL);
  if (!ok) fail("cannot link the receive branch");
  GstPad *src = gst_element_get_static_pad(dec, "src");
  gst_pad_add_probe(src, GST_PAD_PROBE_TYPE_BUFFER, count_frame, NULL, NULL);
  gst_object_unref(src);
  /* The stamp is read where Sluice's reader sits: after conversion, before the sink. */
  GstPad *out = gst_element_get_static_pad(conv, "src");
  gst_pad_add_probe(out, GST_PAD_PROBE_TYPE_BUFFER, read_stamp, NULL, NULL);
  gst_object_unref(out);
  gst_element_sync_state_with_parent(sink);
  gst_element_sync_state_with_parent(conv);
  gst_element_sync_state_with_parent(dec);
  if (parse) gst_element_sync_state_with_parent(parse);
  gst_element_sync_state_with_parent(depay);
  GstPad *in = gst_element_get_static_pad(depay, "sink");
  if (gst_pad_link(pad, in) != GST_PAD_LINK_OK) fail("cannot link webrtcbin's pad");
  gst_object_unref(in);
}

/* Sluice's loss-repair defaults (WebRTCDefaults): NACK/RTX on every transceiver, RTCP at
 * least every 100 ms per session. */
static void on_new_transceiver(GstElement *bin, GObject *trans, gpointer u) {
  (void)bin; (void)u;
  g_object_set(trans, "do-nack", TRUE, NULL);
}

static void on_new_ssrc(GstElement *rtpbin, guint session, guint ssrc, gpointer u) {
  (void)ssrc; (void)u;
  GObject *s = NULL;
  g_signal_emit_by_name(rtpbin, "get-internal-session", session, &s);
  if (s) { g_object_set(s, "rtcp-min-interval", (guint64)100000000, NULL); g_object_unref(s); }
}

/* FAST_START=1: the start-up settings Sluice uses, so that the C program's first frame is the
 * floor of this graph's start-up (Benchmarks/startup-floor.sh): connectivity checks every 5 ms
 * (libnice: 20), no ICE-TCP candidates (loopback), and jitter buffers that let the first
 * packet go after 2 ms instead of the whole latency. Its keyframe waits at the transport from
 * the first encoded frame on, so it leaves the moment DTLS is up: nothing can start sooner. */
static gboolean fast_start;

static void on_new_jitterbuffer(GstElement *rtpbin, GstElement *jb, guint session, guint ssrc, gpointer u) {
  (void)rtpbin; (void)session; (void)ssrc; (void)u;
  g_object_set(jb, "latency", 2u, NULL);
}

static GstElement *make_webrtcbin(const char *name) {
  GstElement *bin = make("webrtcbin", name);
  gst_util_set_object_arg(G_OBJECT(bin), "bundle-policy", "max-bundle");
  g_object_set(bin, "latency", 50u, NULL);
  GstObject *ice = NULL;
  g_object_get(bin, "ice-agent", &ice, NULL);
  if (!ice) fail("webrtcbin has no ice-agent");
  NiceAgent *agent = NULL;
  g_object_get(ice, "agent", &agent, NULL);
  if (!agent) fail("no NiceAgent");
  g_object_set(agent, "upnp", FALSE, NULL);
  if (fast_start) {
    g_object_set(agent, "stun-pacing-timer", 5u, NULL);
    g_object_set(ice, "ice-tcp", FALSE, NULL);
  }
  NiceAddress *addr = nice_address_new();
  nice_address_set_from_string(addr, "127.0.0.1");
  if (!nice_agent_add_local_address(agent, addr)) fail("nice_agent_add_local_address");
  nice_address_free(addr);
  g_object_unref(agent);
  gst_object_unref(ice);
  g_signal_connect(bin, "on-new-transceiver", G_CALLBACK(on_new_transceiver), NULL);
  GstElement *rtpbin = gst_bin_get_by_name(GST_BIN(bin), "rtpbin");
  if (rtpbin) {
    g_signal_connect(rtpbin, "on-new-ssrc", G_CALLBACK(on_new_ssrc), NULL);
    if (fast_start) g_signal_connect(rtpbin, "new-jitterbuffer", G_CALLBACK(on_new_jitterbuffer), NULL);
    gst_object_unref(rtpbin);
  }
  return bin;
}

static gboolean on_bus(GstBus *bus, GstMessage *m, gpointer u) {
  (void)bus; (void)u;
  if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_ERROR) {
    GError *e = NULL; gchar *dbg = NULL;
    gst_message_parse_error(m, &e, &dbg);
    fprintf(stderr, "error from %s: %s (%s)\n", GST_OBJECT_NAME(m->src), e->message, dbg ? dbg : "");
    exit(2);
  }
  return TRUE;
}

static gboolean on_timeout(gpointer u) {
  (void)u;
  g_main_loop_quit(loop);
  return G_SOURCE_REMOVE;
}

int main(int argc, char **argv) {
  if (argc < 7) {
    fprintf(stderr, "usage: %s vp8|h264 WIDTH HEIGHT FPS KBPS SECONDS [PATTERN [VP8_THREADS]]\n", argv[0]);
    return 64;
  }
  gst_init(NULL, NULL);
  codec = argv[1];
  int w = atoi(argv[2]), h = atoi(argv[3]), fps = atoi(argv[4]), kbps = atoi(argv[5]);
  double seconds = atof(argv[6]);
  const char *pattern = argc > 7 ? argv[7] : "ball";
  const char *vp8_threads = argc > 8 ? argv[8] : "1";
  gboolean h264 = strcmp(codec, "h264") == 0;
  if (!h264 && strcmp(codec, "vp8") != 0) fail("codec is vp8 or h264");
  g_mutex_init(&lock);
  start_us = g_get_monotonic_time();
  double key_ms = -1;
  const char *fast = g_getenv("FAST_START");
  fast_start = fast && strcmp(fast, "1") == 0;
  const char *warm = g_getenv("WARM_KEY");
  if (warm && strcmp(warm, "1") == 0) {
    GstElement *dec = make("dtlssrtpdec", NULL); /* makes GStreamer's one-time RSA key */
    gst_object_unref(gst_object_ref_sink(dec));
    key_ms = (g_get_monotonic_time() - start_us) / 1e3;
  }

  pipeline = gst_pipeline_new("loopback");
  sendbin = make_webrtcbin("send");
  recvbin = make_webrtcbin("recv");
  gst_bin_add_many(GST_BIN(pipeline), sendbin, recvbin, NULL);
  send_peer = (Peer){sendbin, FALSE, g_ptr_array_new_with_free_func(g_free)};
  recv_peer = (Peer){recvbin, FALSE, g_ptr_array_new_with_free_func(g_free)};
  g_signal_connect(sendbin, "on-ice-candidate", G_CALLBACK(on_candidate), &recv_peer);
  g_signal_connect(recvbin, "on-ice-candidate", G_CALLBACK(on_candidate), &send_peer);
  g_signal_connect(recvbin, "pad-added", G_CALLBACK(on_pad_added), NULL);

  char buf[256];
  GstElement *src = make("videotestsrc", NULL);
  setp(src, "is-live", "true");
  setp(src, "pattern", pattern);
  GstElement *caps = make("capsfilter", NULL);
  snprintf(buf, sizeof buf, "video/x-raw,width=%d,height=%d,framerate=%d/1,format=I420", w, h, fps);
  setp(caps, "caps", buf);
  GstElement *queue = make("queue", NULL);
  setp(queue, "max-size-buffers", "3"); setp(queue, "max-size-bytes", "0");
  setp(queue, "max-size-time", "0"); setp(queue, "leaky", "downstream");
  int gop = fps * 2;
  GstElement *enc, *enccaps = NULL, *parse = NULL, *avccaps = NULL, *pay, *rtpcaps = make("capsfilter", NULL);
  if (h264) {
    enc = make("x264enc", NULL);
    snprintf(buf, sizeof buf, "%d", kbps); setp(enc, "bitrate", buf);
    snprintf(buf, sizeof buf, "%d", gop); setp(enc, "key-int-max", buf);
    setp(enc, "tune", "zerolatency"); setp(enc, "speed-preset", "ultrafast"); setp(enc, "bframes", "0");
    setp(enc, "b-adapt", "false"); setp(enc, "rc-lookahead", "0"); setp(enc, "sync-lookahead", "0");
    setp(enc, "vbv-buf-capacity", "300");
    /* As Sluice (EncoderPresets): no access unit delimiters, and AVC into the payloader. */
    setp(enc, "aud", "false");
    avccaps = make("capsfilter", NULL);
    setp(avccaps, "caps", "video/x-h264,stream-format=avc,alignment=au");
    enccaps = make("capsfilter", NULL);
    setp(enccaps, "caps", "video/x-h264,profile=constrained-baseline,stream-format=byte-stream");
    parse = make("h264parse", NULL);
    setp(parse, "config-interval", "-1");
    pay = make("rtph264pay", NULL);
    setp(pay, "mtu", "1200"); setp(pay, "pt", "102");
    setp(pay, "config-interval", "-1"); setp(pay, "aggregate-mode", "zero-latency");
    setp(rtpcaps, "caps", "application/x-rtp,media=video,encoding-name=H264,payload=102,clock-rate=90000,rtcp-fb-nack=(boolean)true,rtcp-fb-nack-pli=(boolean)true,rtcp-fb-ccm-fir=(boolean)true");
  } else {
    enc = make("vp8enc", NULL);
    snprintf(buf, sizeof buf, "%d", kbps * 1000); setp(enc, "target-bitrate", buf);
    snprintf(buf, sizeof buf, "%d", gop); setp(enc, "keyframe-max-dist", buf);
    setp(enc, "deadline", "1"); setp(enc, "cpu-used", "16"); setp(enc, "end-usage", "cbr");
    setp(enc, "lag-in-frames", "0"); setp(enc, "error-resilient", "default"); setp(enc, "threads", vp8_threads);
    setp(enc, "buffer-size", "300"); setp(enc, "buffer-initial-size", "200");
    setp(enc, "buffer-optimal-size", "250"); setp(enc, "undershoot", "95");
    pay = make("rtpvp8pay", NULL);
    setp(pay, "mtu", "1200"); setp(pay, "pt", "96"); setp(pay, "picture-id-mode", "15-bit");
    setp(rtpcaps, "caps", "application/x-rtp,media=video,encoding-name=VP8,payload=96,clock-rate=90000,rtcp-fb-nack=(boolean)true,rtcp-fb-nack-pli=(boolean)true,rtcp-fb-ccm-fir=(boolean)true");
  }
  gst_bin_add_many(GST_BIN(pipeline), src, caps, queue, enc, pay, rtpcaps, NULL);
  gboolean ok;
  if (h264) {
    gst_bin_add_many(GST_BIN(pipeline), enccaps, parse, avccaps, NULL);
    ok = gst_element_link_many(src, caps, queue, enc, enccaps, parse, avccaps, pay, rtpcaps, NULL);
  } else {
    ok = gst_element_link_many(src, caps, queue, enc, pay, rtpcaps, NULL);
  }
  if (!ok) fail("cannot link the send branch");
  /* The stamp is written right after capture, where Sluice's writer sits. */
  stamp_block = MIN(16, MAX(4, w / 32));
  latencies_ms = g_array_new(FALSE, FALSE, sizeof(double));
  GstPad *cs = gst_element_get_static_pad(caps, "src");
  gst_pad_add_probe(cs, GST_PAD_PROBE_TYPE_BUFFER, write_stamp, NULL, NULL);
  gst_object_unref(cs);
  GstPad *out = gst_element_get_static_pad(rtpcaps, "src");
  GstPad *in = gst_element_request_pad_simple(sendbin, "sink_%u");
  if (!in || gst_pad_link(out, in) != GST_PAD_LINK_OK) fail("cannot link to webrtcbin");
  gst_object_unref(out);

  GstBus *bus = gst_element_get_bus(pipeline);
  gst_bus_add_watch(bus, on_bus, NULL);
  gst_object_unref(bus);
  loop = g_main_loop_new(NULL, FALSE);
  if (gst_element_set_state(pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) fail("cannot play");
  double playing_ms = (g_get_monotonic_time() - start_us) / 1e3;
  GstPromise *p = gst_promise_new_with_change_func(on_offer, NULL, NULL);
  g_signal_emit_by_name(sendbin, "create-offer", NULL, p);

  g_timeout_add((guint)(seconds * 1000), on_timeout, NULL);
  g_main_loop_run(loop);
  double duration = now_s();
  gint n = g_atomic_int_get(&frames);
  double steady_s = steady_from_us ? (g_get_monotonic_time() - steady_from_us) / 1e6 : 0;
  gint steady_frames = steady_from_us ? n - steady_from_frames : 0;
  gst_element_set_state(pipeline, GST_STATE_NULL);
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  double cpu = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
  g_array_sort(latencies_ms, cmp_double);
  const double *lv = (const double *)latencies_ms->data;
  guint ln = latencies_ms->len;
  printf("{\"frames\": %d, \"duration_s\": %.3f, \"time_to_first_frame_ms\": %.1f, \"cpu_seconds\": %.3f, "
         "\"latency_samples\": %u, \"latency_p50_ms\": %.3f, \"latency_p95_ms\": %.3f, \"latency_p99_ms\": %.3f, "
         "\"stamps_unreadable\": %d, \"playing_ms\": %.1f, \"key_ms\": %.1f, \"steady_frames\": %d, "
         "\"steady_s\": %.3f}\n", n,
         duration, first_frame_us ? (first_frame_us - start_us) / 1e3 : -1.0, cpu,
         ln, percentile(lv, ln, 50), percentile(lv, ln, 95), percentile(lv, ln, 99), g_atomic_int_get(&stamps_unreadable),
         playing_ms, key_ms, steady_frames, steady_s);
  gst_object_unref(pipeline);
  return 0;
}

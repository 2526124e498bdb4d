/* A minimal C reference for Sluice's WebRTC loopback (Benchmarks/c-compare.sh).
 *
 * The same graph Sluice builds for a loopback file with a test capture, a realtime-preset
 * encoder and a stats sink (GraphBuilder.buildSend/buildReceive, EncoderPresets,
 * DefaultElements, PipelineRun.buildLoopback/negotiate):
 *
 *   videotestsrc is-live=true pattern=P ! capsfilter video/x-raw,WxH,fps,I420
 *     ! queue max-size-buffers=3 max-size-bytes=0 max-size-time=0 leaky=downstream
 *     ! ENCODER (realtime preset) [! capsfilter h264 caps ! h264parse config-interval=-1]
 *     ! PAYLOADER (mtu=1200, pt, ...) ! capsfilter (RTP caps) ! webrtcbin name=send
 *   webrtcbin name=recv  --pad-added-->  DEPAY [! h264parse] ! DECODER ! videoconvert
 *     ! fakesink sync=false async=false
 *
 * Both webrtcbins: bundle-policy max-bundle, latency 50, libnice upnp off, 127.0.0.1 added
 * with nice_agent_add_local_address before negotiation. Offer/answer through promises,
 * candidates handed straight to the other peer (queued until its remote description is
 * set). Counts decoded frames (probe on the decoder's src pad).
 *
 * Usage: webrtc-loopback CODEC(vp8|h264) WIDTH HEIGHT FPS KBPS SECONDS [PATTERN [VP8_THREADS]]
 * (VP8_THREADS defaults to 2, the realtime preset's value.)
 * Prints one JSON line: frames, duration_s, time_to_first_frame_ms, cpu_seconds.
 * No framestamps: latency is not measured here.
 */
#include <gst/gst.h>
#include <gst/sdp/sdp.h>
#define GST_USE_UNSTABLE_API
#include <gst/webrtc/webrtc.h>
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

static GstPadProbeReturn count_frame(GstPad *pad, GstPadProbeInfo *info, gpointer u) {
  (void)pad; (void)info; (void)u;
  if (g_atomic_int_add(&frames, 1) == 0) first_frame_us = g_get_monotonic_time();
  return GST_PAD_PROBE_OK;
}

static void on_pad_added(GstElement *bin, GstPad *pad, gpointer u) {
  (void)bin; (void)u;
  if (GST_PAD_DIRECTION(pad) != GST_PAD_SRC) return;
  gboolean h264 = strcmp(codec, "h264") == 0;
  GstElement *depay = make(h264 ? "rtph264depay" : "rtpvp8depay", NULL);
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
  gst_element_sync_state_with_parent(sink);
  gst_element_sync_state_with_parent(conv);
  gst_element_sync_state_with_parent(dec);
  if (parse) gst_element_sync_state_with_parent(parse);
  gst_element_sync_state_with_parent(depay);
  GstPad *in = gst_element_get_static_pad(depay, "sink");
  if (gst_pad_link(pad, in) != GST_PAD_LINK_OK) fail("cannot link webrtcbin's pad");
  gst_object_unref(in);
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
  NiceAddress *addr = nice_address_new();
  nice_address_set_from_string(addr, "127.0.0.1");
  if (!nice_agent_add_local_address(agent, addr)) fail("nice_agent_add_local_address");
  nice_address_free(addr);
  g_object_unref(agent);
  gst_object_unref(ice);
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
  GstElement *enc, *enccaps = NULL, *parse = NULL, *pay, *rtpcaps = make("capsfilter", NULL);
  if (h264) {
    enc = make("x264enc", NULL);
    snprintf(buf, sizeof buf, "%d", kbps); setp(enc, "bitrate", buf);
    snprintf(buf, sizeof buf, "%d", gop); setp(enc, "key-int-max", buf);
    setp(enc, "tune", "zerolatency"); setp(enc, "speed-preset", "ultrafast"); setp(enc, "bframes", "0");
    setp(enc, "b-adapt", "false"); setp(enc, "rc-lookahead", "0"); setp(enc, "sync-lookahead", "0");
    setp(enc, "vbv-buf-capacity", "300");
    enccaps = make("capsfilter", NULL);
    setp(enccaps, "caps", "video/x-h264,profile=constrained-baseline,stream-format=byte-stream");
    parse = make("h264parse", NULL);
    setp(parse, "config-interval", "-1");
    pay = make("rtph264pay", NULL);
    setp(pay, "mtu", "1200"); setp(pay, "pt", "102");
    setp(pay, "config-interval", "-1"); setp(pay, "aggregate-mode", "zero-latency");
    setp(rtpcaps, "caps", "application/x-rtp,media=video,encoding-name=H264,payload=102,clock-rate=90000");
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
    setp(rtpcaps, "caps", "application/x-rtp,media=video,encoding-name=VP8,payload=96,clock-rate=90000");
  }
  gst_bin_add_many(GST_BIN(pipeline), src, caps, queue, enc, pay, rtpcaps, NULL);
  gboolean ok;
  if (h264) {
    gst_bin_add_many(GST_BIN(pipeline), enccaps, parse, NULL);
    ok = gst_element_link_many(src, caps, queue, enc, enccaps, parse, pay, rtpcaps, NULL);
  } else {
    ok = gst_element_link_many(src, caps, queue, enc, pay, rtpcaps, NULL);
  }
  if (!ok) fail("cannot link the send branch");
  GstPad *out = gst_element_get_static_pad(rtpcaps, "src");
  GstPad *in = gst_element_request_pad_simple(sendbin, "sink_%u");
  if (!in || gst_pad_link(out, in) != GST_PAD_LINK_OK) fail("cannot link to webrtcbin");
  gst_object_unref(out);

  GstBus *bus = gst_element_get_bus(pipeline);
  gst_bus_add_watch(bus, on_bus, NULL);
  gst_object_unref(bus);
  loop = g_main_loop_new(NULL, FALSE);
  if (gst_element_set_state(pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) fail("cannot play");
  GstPromise *p = gst_promise_new_with_change_func(on_offer, NULL, NULL);
  g_signal_emit_by_name(sendbin, "create-offer", NULL, p);

  g_timeout_add((guint)(seconds * 1000), on_timeout, NULL);
  g_main_loop_run(loop);
  double duration = now_s();
  gint n = g_atomic_int_get(&frames);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  double cpu = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
  printf("{\"frames\": %d, \"duration_s\": %.3f, \"time_to_first_frame_ms\": %.1f, \"cpu_seconds\": %.3f}\n", n,
         duration, first_frame_us ? (first_frame_us - start_us) / 1e3 : -1.0, cpu);
  gst_object_unref(pipeline);
  return 0;
}

#ifndef SLUICE_ELEMENTS_H
#define SLUICE_ELEMENTS_H
/*
 * GObject subclass boilerplate for GStreamer elements written in Swift: a GstVideoFilter
 * (in-place frame filter), a GstAudioFilter (in-place sample filter) and a GstPushSrc (frame source). Each registered element type
 * carries a class-data record whose function pointers call into Swift; all behaviour lives
 * there. No logic here beyond GObject/GStreamer plumbing.
 */
#include <gst/gst.h>
#include <gst/base/gstpushsrc.h>
#include <gst/video/video.h>
#include <gst/audio/audio.h>
#include <gst/rtp/gstrtpbasepayload.h>

/* --- Filters ----------------------------------------------------------------------- */

typedef struct {
    /* Makes the Swift state of one element instance. `element` is the instance being
       initialized: keep it unretained (the state dies in its finalize). */
    gpointer (*create)(gpointer context, gpointer element);
    void (*destroy)(gpointer state);
    /* Negotiated format; return FALSE to refuse it. */
    gboolean (*set_info)(gpointer state, const GstVideoInfo *info);
    /* One frame, in place. Return 0 to keep it, 1 to drop it, -1 for a fatal error
       (the element then posts `error_text` and stops the stream). */
    gint (*process)(gpointer state, GstVideoFrame *frame, guint64 frame_number);
    void (*set_property)(gpointer state, guint index, const GValue *value);
    void (*get_property)(gpointer state, guint index, GValue *value);
} SluiceFilterVTable;

typedef struct {
    SluiceFilterVTable vtable;
    gpointer context;
    const gchar *longname;
    const gchar *description;
    /* Caps of both pads, e.g. "video/x-raw, format=(string){ I420, NV12 }". */
    const gchar *caps;
    /* The filter never writes pixels: run on non-writable buffers without copying. */
    gboolean analysis_only;
    guint n_properties;
    GParamSpec **properties; /* index i is property id i + 1 */
} SluiceFilterClassData;

/* Registers an element factory `factory_name` (type `type_name`) backed by `data`, which
   must outlive the process. Returns 0 if a type of that name exists or registration fails. */
GType sluice_filter_register(const gchar *type_name, const gchar *factory_name, const SluiceFilterClassData *data);

/* Posts an element error (stream, failed) with a message, from Swift code in `process`. */
void sluice_element_post_error(gpointer element, const gchar *text);

/* Posts an element message carrying `structure` (taken). */
gboolean sluice_element_post_structure(gpointer element, GstStructure *structure);

/* --- Audio filters ------------------------------------------------------------------ */

typedef struct {
    gpointer (*create)(gpointer context, gpointer element);
    void (*destroy)(gpointer state);
    /* Negotiated format (GstAudioFilter's setup); return FALSE to refuse it. */
    gboolean (*setup)(gpointer state, const GstAudioInfo *info);
    /* One buffer of interleaved samples, in place (mapped writable unless the filter is
       analysis-only). Same results as SluiceFilterVTable.process. */
    gint (*process)(gpointer state, guint8 *data, gsize size, GstClockTime pts, guint64 buffer_number);
    void (*set_property)(gpointer state, guint index, const GValue *value);
    void (*get_property)(gpointer state, guint index, GValue *value);
} SluiceAudioFilterVTable;

typedef struct {
    SluiceAudioFilterVTable vtable;
    gpointer context;
    const gchar *longname;
    const gchar *description;
    /* Caps of both pads, e.g. "audio/x-raw, format=(string){ S16LE, F32LE }, layout=interleaved". */
    const gchar *caps;
    gboolean analysis_only;
    guint n_properties;
    GParamSpec **properties; /* index i is property id i + 1 */
} SluiceAudioFilterClassData;

/* Registers an in-place audio filter factory, as sluice_filter_register does for video. */
GType sluice_audio_filter_register(const gchar *type_name, const gchar *factory_name, const SluiceAudioFilterClassData *data);

/* --- Encoded-frame filters ---------------------------------------------------------- */

typedef struct {
    gpointer (*create)(gpointer context, gpointer element);
    void (*destroy)(gpointer state);
    /* The negotiated caps (any encoded format; the filter reads the media type); return
       FALSE to refuse them. */
    gboolean (*set_caps)(gpointer state, GstCaps *caps);
    /* One encoded frame, writable (the Swift side may replace its memory). Return 0 to keep
       it, 1 to drop it, -1 for a fatal error. */
    gint (*process)(gpointer state, GstBuffer *buffer, guint64 frame_number);
    void (*set_property)(gpointer state, guint index, const GValue *value);
    void (*get_property)(gpointer state, guint index, GValue *value);
} SluiceEncodedFilterVTable;

typedef struct {
    SluiceEncodedFilterVTable vtable;
    gpointer context;
    const gchar *longname;
    const gchar *description;
    guint n_properties;
    GParamSpec **properties; /* index i is property id i + 1 */
} SluiceEncodedFilterClassData;

/* Registers an in-place GstBaseTransform on encoded frames (ANY caps on both pads, passed
   through unchanged), as sluice_filter_register does for raw video. */
GType sluice_encoded_filter_register(const gchar *type_name, const gchar *factory_name, const SluiceEncodedFilterClassData *data);

/* --- RTP payloaders ------------------------------------------------------------------ */

typedef struct {
    gpointer (*create)(gpointer context, gpointer element);
    void (*destroy)(gpointer state);
    /* One encoded frame (borrowed: the element unrefs it after the call). Push its packets
       with gst_rtp_base_payload_push_list on `element`; return the flow of that push. */
    GstFlowReturn (*handle)(gpointer state, gpointer element, GstBuffer *buffer);
} SluicePayloaderVTable;

typedef struct {
    SluicePayloaderVTable vtable;
    gpointer context;
    const gchar *longname;
    const gchar *description;
    const gchar *sink_caps;     /* e.g. "video/x-vp8" */
    const gchar *src_caps;      /* e.g. "application/x-rtp, media=video, clock-rate=90000, encoding-name=VP8" */
    const gchar *media;         /* "video" */
    const gchar *encoding_name; /* "VP8" */
    guint clock_rate;           /* 90000 */
} SluicePayloaderClassData;

/* Registers a GstRTPBasePayload subclass whose frames Swift packetizes. */
GType sluice_payloader_register(const gchar *type_name, const gchar *factory_name, const SluicePayloaderClassData *data);

/* --- Sources ----------------------------------------------------------------------- */

typedef struct {
    gpointer (*create)(gpointer context, gpointer element);
    void (*destroy)(gpointer state);
    /* The negotiated format; the source then fills frames of it. */
    gboolean (*set_info)(gpointer state, const GstVideoInfo *info);
    /* Draws frame `frame_number` into `frame`. Return FALSE to end the stream (EOS). */
    gboolean (*fill)(gpointer state, GstVideoFrame *frame, guint64 frame_number);
} SluiceSourceVTable;

typedef struct {
    SluiceSourceVTable vtable;
    gpointer context;
    const gchar *longname;
    const gchar *description;
    const gchar *caps; /* template caps of the src pad (formats it can draw) */
} SluiceSourceClassData;

/* Registers a live video source. Instances have `width`, `height`, `fps` and `format`
   properties, produce exactly that, and are paced by the pipeline clock. */
GType sluice_source_register(const gchar *type_name, const gchar *factory_name, const SluiceSourceClassData *data);

/* --- Audio sources ------------------------------------------------------------------ */

typedef struct {
    gpointer (*create)(gpointer context, gpointer element);
    void (*destroy)(gpointer state);
    /* The negotiated format; the source then fills buffers of it. */
    gboolean (*setup)(gpointer state, const GstAudioInfo *info);
    /* Writes `size` bytes of interleaved samples, the first at `sample_offset` (samples per
       channel since the start). Return FALSE to end the stream (EOS). */
    gboolean (*fill)(gpointer state, guint8 *data, gsize size, guint64 sample_offset);
} SluiceAudioSourceVTable;

typedef struct {
    SluiceAudioSourceVTable vtable;
    gpointer context;
    const gchar *longname;
    const gchar *description;
    const gchar *caps; /* template caps of the src pad */
} SluiceAudioSourceClassData;

/* Registers a live audio source. Instances have `rate`, `channels`, `format` and
   `samples-per-buffer` properties, produce exactly that, and are paced by the pipeline clock. */
GType sluice_audio_source_register(const gchar *type_name, const gchar *factory_name, const SluiceAudioSourceClassData *data);

/* GstVideoFrame accessors (macros in C). */
GstVideoFormat sluice_frame_format(const GstVideoFrame *frame);
gint sluice_frame_width(const GstVideoFrame *frame);
gint sluice_frame_height(const GstVideoFrame *frame);
guint sluice_frame_n_planes(const GstVideoFrame *frame);
guint8 *sluice_frame_plane_data(GstVideoFrame *frame, guint plane);
gint sluice_frame_plane_stride(const GstVideoFrame *frame, guint plane);
GstClockTime sluice_frame_pts(const GstVideoFrame *frame);
GstClockTime sluice_frame_duration(const GstVideoFrame *frame);
#endif

#include "SluiceElements.h"

/* ------------------------------------------------------------------ filter ---------- */

typedef struct {
    GstVideoFilter parent;
    gpointer state;
    guint64 frames;
} SluiceFilter;

typedef struct {
    GstVideoFilterClass parent;
    const SluiceFilterClassData *data;
} SluiceFilterClass;

static const SluiceFilterClassData *filter_data(gpointer instance) {
    return ((SluiceFilterClass *) G_OBJECT_GET_CLASS(instance))->data;
}

static void filter_set_property(GObject *obj, guint id, const GValue *value, GParamSpec *pspec) {
    const SluiceFilterClassData *d = filter_data(obj);
    if (id == 0 || id > d->n_properties) { G_OBJECT_WARN_INVALID_PROPERTY_ID(obj, id, pspec); return; }
    d->vtable.set_property(((SluiceFilter *) obj)->state, id - 1, value);
}

static void filter_get_property(GObject *obj, guint id, GValue *value, GParamSpec *pspec) {
    const SluiceFilterClassData *d = filter_data(obj);
    if (id == 0 || id > d->n_properties) { G_OBJECT_WARN_INVALID_PROPERTY_ID(obj, id, pspec); return; }
    d->vtable.get_property(((SluiceFilter *) obj)->state, id - 1, value);
}

static gboolean filter_set_info(GstVideoFilter *f, GstCaps *in, GstVideoInfo *in_info, GstCaps *out, GstVideoInfo *out_info) {
    (void) in; (void) out; (void) out_info;
    return filter_data(f)->vtable.set_info(((SluiceFilter *) f)->state, in_info);
}

static GstFlowReturn filter_transform_frame_ip(GstVideoFilter *f, GstVideoFrame *frame) {
    SluiceFilter *self = (SluiceFilter *) f;
    gint r = filter_data(f)->vtable.process(self->state, frame, self->frames++);
    if (r == 0) return GST_FLOW_OK;
    if (r == 1) return GST_BASE_TRANSFORM_FLOW_DROPPED;
    return GST_FLOW_ERROR;
}

static void filter_finalize(GObject *obj) {
    SluiceFilter *self = (SluiceFilter *) obj;
    if (self->state) filter_data(obj)->vtable.destroy(self->state);
    self->state = NULL;
    G_OBJECT_CLASS(g_type_class_peek_parent(G_OBJECT_GET_CLASS(obj)))->finalize(obj);
}

static void filter_class_init(gpointer klass, gpointer class_data) {
    const SluiceFilterClassData *d = class_data;
    ((SluiceFilterClass *) klass)->data = d;
    GObjectClass *oc = G_OBJECT_CLASS(klass);
    oc->set_property = filter_set_property;
    oc->get_property = filter_get_property;
    oc->finalize = filter_finalize;
    for (guint i = 0; i < d->n_properties; i++) g_object_class_install_property(oc, i + 1, d->properties[i]);
    GstElementClass *ec = GST_ELEMENT_CLASS(klass);
    gst_element_class_set_static_metadata(ec, d->longname, "Filter/Effect/Video", d->description, "Sluice");
    GstCaps *caps = gst_caps_from_string(d->caps);
    gst_element_class_add_pad_template(ec, gst_pad_template_new("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
    gst_element_class_add_pad_template(ec, gst_pad_template_new("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
    gst_caps_unref(caps);
    GstVideoFilterClass *vf = GST_VIDEO_FILTER_CLASS(klass);
    vf->set_info = filter_set_info;
    vf->transform_frame_ip = filter_transform_frame_ip;
    GST_BASE_TRANSFORM_CLASS(klass)->transform_ip_on_passthrough = d->analysis_only;
}

static void filter_instance_init(GTypeInstance *instance, gpointer klass) {
    const SluiceFilterClassData *d = ((SluiceFilterClass *) klass)->data;
    SluiceFilter *self = (SluiceFilter *) instance;
    self->frames = 0;
    self->state = d->vtable.create(d->context, instance);
    GstBaseTransform *bt = GST_BASE_TRANSFORM(instance);
    gst_base_transform_set_in_place(bt, TRUE);
    gst_base_transform_set_qos_enabled(bt, TRUE);
    if (d->analysis_only) gst_base_transform_set_passthrough(bt, TRUE);
}

GType sluice_filter_register(const gchar *type_name, const gchar *factory_name, const SluiceFilterClassData *data) {
    if (g_type_from_name(type_name)) return 0;
    GTypeInfo info = {
        sizeof(SluiceFilterClass), NULL, NULL, filter_class_init, NULL, data,
        sizeof(SluiceFilter), 0, filter_instance_init, NULL,
    };
    GType t = g_type_register_static(GST_TYPE_VIDEO_FILTER, type_name, &info, 0);
    if (!t || !gst_element_register(NULL, factory_name, GST_RANK_NONE, t)) return 0;
    return t;
}

void sluice_element_post_error(gpointer element, const gchar *text) {
    GST_ELEMENT_ERROR(element, STREAM, FAILED, ("%s", text), (NULL));
}

gboolean sluice_element_post_structure(gpointer element, GstStructure *structure) {
    return gst_element_post_message(GST_ELEMENT(element), gst_message_new_element(GST_OBJECT(element), structure));
}

/* ------------------------------------------------------------------ source ---------- */

typedef struct {
    GstPushSrc parent;
    gpointer state;
    gint width, height, fps;
    gchar *format;
    GstVideoInfo info;
    guint64 frames;
} SluiceSource;

typedef struct {
    GstPushSrcClass parent;
    const SluiceSourceClassData *data;
} SluiceSourceClass;

enum { SRC_PROP_0, SRC_PROP_WIDTH, SRC_PROP_HEIGHT, SRC_PROP_FPS, SRC_PROP_FORMAT };

static const SluiceSourceClassData *source_data(gpointer instance) {
    return ((SluiceSourceClass *) G_OBJECT_GET_CLASS(instance))->data;
}

static void source_set_property(GObject *obj, guint id, const GValue *value, GParamSpec *pspec) {
    SluiceSource *s = (SluiceSource *) obj;
    switch (id) {
    case SRC_PROP_WIDTH: s->width = g_value_get_int(value); break;
    case SRC_PROP_HEIGHT: s->height = g_value_get_int(value); break;
    case SRC_PROP_FPS: s->fps = g_value_get_int(value); break;
    case SRC_PROP_FORMAT: g_free(s->format); s->format = g_value_dup_string(value); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(obj, id, pspec);
    }
}

static void source_get_property(GObject *obj, guint id, GValue *value, GParamSpec *pspec) {
    SluiceSource *s = (SluiceSource *) obj;
    switch (id) {
    case SRC_PROP_WIDTH: g_value_set_int(value, s->width); break;
    case SRC_PROP_HEIGHT: g_value_set_int(value, s->height); break;
    case SRC_PROP_FPS: g_value_set_int(value, s->fps); break;
    case SRC_PROP_FORMAT: g_value_set_string(value, s->format); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(obj, id, pspec);
    }
}

/* The one format the properties describe, intersected with what downstream accepts. */
static GstCaps *source_get_caps(GstBaseSrc *src, GstCaps *filter) {
    SluiceSource *s = (SluiceSource *) src;
    GstCaps *caps = gst_caps_new_simple("video/x-raw",
        "format", G_TYPE_STRING, s->format, "width", G_TYPE_INT, s->width,
        "height", G_TYPE_INT, s->height, "framerate", GST_TYPE_FRACTION, s->fps, 1,
        "pixel-aspect-ratio", GST_TYPE_FRACTION, 1, 1, NULL);
    if (filter) {
        GstCaps *i = gst_caps_intersect_full(filter, caps, GST_CAPS_INTERSECT_FIRST);
        gst_caps_unref(caps);
        caps = i;
    }
    return caps;
}

static gboolean source_set_caps(GstBaseSrc *src, GstCaps *caps) {
    SluiceSource *s = (SluiceSource *) src;
    if (!gst_video_info_from_caps(&s->info, caps)) return FALSE;
    gst_base_src_set_blocksize(src, (guint) GST_VIDEO_INFO_SIZE(&s->info));
    return source_data(src)->vtable.set_info(s->state, &s->info);
}

static gboolean source_start(GstBaseSrc *src) {
    ((SluiceSource *) src)->frames = 0;
    return TRUE;
}

static GstFlowReturn source_fill(GstPushSrc *src, GstBuffer *buf) {
    SluiceSource *s = (SluiceSource *) src;
    GstClockTime duration = gst_util_uint64_scale_int(GST_SECOND, 1, s->fps > 0 ? s->fps : 30);
    GST_BUFFER_PTS(buf) = s->frames * duration;
    GST_BUFFER_DTS(buf) = GST_CLOCK_TIME_NONE;
    GST_BUFFER_DURATION(buf) = duration;
    GST_BUFFER_OFFSET(buf) = s->frames;
    GST_BUFFER_OFFSET_END(buf) = s->frames + 1;
    GstVideoFrame frame;
    if (!gst_video_frame_map(&frame, &s->info, buf, GST_MAP_WRITE)) return GST_FLOW_ERROR;
    gboolean more = source_data(src)->vtable.fill(s->state, &frame, s->frames);
    gst_video_frame_unmap(&frame);
    s->frames++;
    return more ? GST_FLOW_OK : GST_FLOW_EOS;
}

static void source_get_times(GstBaseSrc *src, GstBuffer *buf, GstClockTime *start, GstClockTime *end) {
    (void) src;
    /* Live: sync each buffer to the clock at its timestamp. */
    *start = GST_BUFFER_PTS(buf);
    *end = GST_CLOCK_TIME_IS_VALID(*start) && GST_BUFFER_DURATION_IS_VALID(buf)
        ? *start + GST_BUFFER_DURATION(buf) : GST_CLOCK_TIME_NONE;
}

static void source_finalize(GObject *obj) {
    SluiceSource *s = (SluiceSource *) obj;
    if (s->state) source_data(obj)->vtable.destroy(s->state);
    s->state = NULL;
    g_free(s->format);
    G_OBJECT_CLASS(g_type_class_peek_parent(G_OBJECT_GET_CLASS(obj)))->finalize(obj);
}

static void source_class_init(gpointer klass, gpointer class_data) {
    const SluiceSourceClassData *d = class_data;
    ((SluiceSourceClass *) klass)->data = d;
    GObjectClass *oc = G_OBJECT_CLASS(klass);
    oc->set_property = source_set_property;
    oc->get_property = source_get_property;
    oc->finalize = source_finalize;
    GParamFlags rw = (GParamFlags) (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
    g_object_class_install_property(oc, SRC_PROP_WIDTH, g_param_spec_int("width", "Width", "Frame width", 16, 7680, 1280, rw));
    g_object_class_install_property(oc, SRC_PROP_HEIGHT, g_param_spec_int("height", "Height", "Frame height", 16, 4320, 720, rw));
    g_object_class_install_property(oc, SRC_PROP_FPS, g_param_spec_int("fps", "FPS", "Frames per second", 1, 240, 30, rw));
    g_object_class_install_property(oc, SRC_PROP_FORMAT, g_param_spec_string("format", "Format", "Raw video format", "I420", rw));
    GstElementClass *ec = GST_ELEMENT_CLASS(klass);
    gst_element_class_set_static_metadata(ec, d->longname, "Source/Video", d->description, "Sluice");
    GstCaps *caps = gst_caps_from_string(d->caps);
    gst_element_class_add_pad_template(ec, gst_pad_template_new("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
    gst_caps_unref(caps);
    GstBaseSrcClass *bs = GST_BASE_SRC_CLASS(klass);
    bs->get_caps = source_get_caps;
    bs->set_caps = source_set_caps;
    bs->start = source_start;
    bs->get_times = source_get_times;
    GST_PUSH_SRC_CLASS(klass)->fill = source_fill;
}

static void source_instance_init(GTypeInstance *instance, gpointer klass) {
    const SluiceSourceClassData *d = ((SluiceSourceClass *) klass)->data;
    SluiceSource *s = (SluiceSource *) instance;
    s->width = 1280; s->height = 720; s->fps = 30; s->format = g_strdup("I420"); s->frames = 0;
    gst_video_info_init(&s->info);
    s->state = d->vtable.create(d->context, instance);
    gst_base_src_set_live(GST_BASE_SRC(instance), TRUE);
    gst_base_src_set_format(GST_BASE_SRC(instance), GST_FORMAT_TIME);
}

GType sluice_source_register(const gchar *type_name, const gchar *factory_name, const SluiceSourceClassData *data) {
    if (g_type_from_name(type_name)) return 0;
    GTypeInfo info = {
        sizeof(SluiceSourceClass), NULL, NULL, source_class_init, NULL, data,
        sizeof(SluiceSource), 0, source_instance_init, NULL,
    };
    GType t = g_type_register_static(GST_TYPE_PUSH_SRC, type_name, &info, 0);
    if (!t || !gst_element_register(NULL, factory_name, GST_RANK_NONE, t)) return 0;
    return t;
}

/* ------------------------------------------------------------------ frames ---------- */

GstVideoFormat sluice_frame_format(const GstVideoFrame *f) { return GST_VIDEO_FRAME_FORMAT(f); }
gint sluice_frame_width(const GstVideoFrame *f) { return GST_VIDEO_FRAME_WIDTH(f); }
gint sluice_frame_height(const GstVideoFrame *f) { return GST_VIDEO_FRAME_HEIGHT(f); }
guint sluice_frame_n_planes(const GstVideoFrame *f) { return GST_VIDEO_FRAME_N_PLANES(f); }
guint8 *sluice_frame_plane_data(GstVideoFrame *f, guint p) { return GST_VIDEO_FRAME_PLANE_DATA(f, p); }
gint sluice_frame_plane_stride(const GstVideoFrame *f, guint p) { return GST_VIDEO_FRAME_PLANE_STRIDE(f, p); }
GstClockTime sluice_frame_pts(const GstVideoFrame *f) { return GST_BUFFER_PTS(f->buffer); }
GstClockTime sluice_frame_duration(const GstVideoFrame *f) { return GST_BUFFER_DURATION(f->buffer); }


/* ------------------------------------------------------------- audio filter ---------- */

typedef struct {
    GstAudioFilter parent;
    gpointer state;
    guint64 buffers;
} SluiceAudioFilter;

typedef struct {
    GstAudioFilterClass parent;
    const SluiceAudioFilterClassData *data;
} SluiceAudioFilterClass;

static const SluiceAudioFilterClassData *audio_filter_data(gpointer instance) {
    return ((SluiceAudioFilterClass *) G_OBJECT_GET_CLASS(instance))->data;
}

static void audio_filter_set_property(GObject *obj, guint id, const GValue *value, GParamSpec *pspec) {
    const SluiceAudioFilterClassData *d = audio_filter_data(obj);
    if (id == 0 || id > d->n_properties) { G_OBJECT_WARN_INVALID_PROPERTY_ID(obj, id, pspec); return; }
    d->vtable.set_property(((SluiceAudioFilter *) obj)->state, id - 1, value);
}

static void audio_filter_get_property(GObject *obj, guint id, GValue *value, GParamSpec *pspec) {
    const SluiceAudioFilterClassData *d = audio_filter_data(obj);
    if (id == 0 || id > d->n_properties) { G_OBJECT_WARN_INVALID_PROPERTY_ID(obj, id, pspec); return; }
    d->vtable.get_property(((SluiceAudioFilter *) obj)->state, id - 1, value);
}

static gboolean audio_filter_setup(GstAudioFilter *f, const GstAudioInfo *info) {
    return audio_filter_data(f)->vtable.setup(((SluiceAudioFilter *) f)->state, info);
}

static GstFlowReturn audio_filter_transform_ip(GstBaseTransform *t, GstBuffer *buffer) {
    SluiceAudioFilter *self = (SluiceAudioFilter *) t;
    const SluiceAudioFilterClassData *d = audio_filter_data(t);
    GstMapInfo map;
    if (!gst_buffer_map(buffer, &map, d->analysis_only ? GST_MAP_READ : GST_MAP_READWRITE)) return GST_FLOW_ERROR;
    gint r = d->vtable.process(self->state, map.data, map.size, GST_BUFFER_PTS(buffer), self->buffers++);
    gst_buffer_unmap(buffer, &map);
    if (r == 0) return GST_FLOW_OK;
    if (r == 1) return GST_BASE_TRANSFORM_FLOW_DROPPED;
    return GST_FLOW_ERROR;
}

static void audio_filter_finalize(GObject *obj) {
    SluiceAudioFilter *self = (SluiceAudioFilter *) obj;
    if (self->state) audio_filter_data(obj)->vtable.destroy(self->state);
    self->state = NULL;
    G_OBJECT_CLASS(g_type_class_peek_parent(G_OBJECT_GET_CLASS(obj)))->finalize(obj);
}

static void audio_filter_class_init(gpointer klass, gpointer class_data) {
    const SluiceAudioFilterClassData *d = class_data;
    ((SluiceAudioFilterClass *) klass)->data = d;
    GObjectClass *oc = G_OBJECT_CLASS(klass);
    oc->set_property = audio_filter_set_property;
    oc->get_property = audio_filter_get_property;
    oc->finalize = audio_filter_finalize;
    for (guint i = 0; i < d->n_properties; i++) g_object_class_install_property(oc, i + 1, d->properties[i]);
    GstElementClass *ec = GST_ELEMENT_CLASS(klass);
    gst_element_class_set_static_metadata(ec, d->longname, "Filter/Effect/Audio", d->description, "Sluice");
    GstCaps *caps = gst_caps_from_string(d->caps);
    gst_audio_filter_class_add_pad_templates(GST_AUDIO_FILTER_CLASS(klass), caps);
    gst_caps_unref(caps);
    GST_AUDIO_FILTER_CLASS(klass)->setup = audio_filter_setup;
    GstBaseTransformClass *bt = GST_BASE_TRANSFORM_CLASS(klass);
    bt->transform_ip = audio_filter_transform_ip;
    bt->transform_ip_on_passthrough = d->analysis_only;
}

static void audio_filter_instance_init(GTypeInstance *instance, gpointer klass) {
    const SluiceAudioFilterClassData *d = ((SluiceAudioFilterClass *) klass)->data;
    SluiceAudioFilter *self = (SluiceAudioFilter *) instance;
    self->buffers = 0;
    self->state = d->vtable.create(d->context, instance);
    GstBaseTransform *bt = GST_BASE_TRANSFORM(instance);
    gst_base_transform_set_in_place(bt, TRUE);
    if (d->analysis_only) gst_base_transform_set_passthrough(bt, TRUE);
}

GType sluice_audio_filter_register(const gchar *type_name, const gchar *factory_name, const SluiceAudioFilterClassData *data) {
    if (g_type_from_name(type_name)) return 0;
    GTypeInfo info = {
        sizeof(SluiceAudioFilterClass), NULL, NULL, audio_filter_class_init, NULL, data,
        sizeof(SluiceAudioFilter), 0, audio_filter_instance_init, NULL,
    };
    GType t = g_type_register_static(GST_TYPE_AUDIO_FILTER, type_name, &info, 0);
    if (!t || !gst_element_register(NULL, factory_name, GST_RANK_NONE, t)) return 0;
    return t;
}

/* ------------------------------------------------------------ encoded filter ---------- */

typedef struct {
    GstBaseTransform parent;
    gpointer state;
    guint64 frames;
} SluiceEncodedFilter;

typedef struct {
    GstBaseTransformClass parent;
    const SluiceEncodedFilterClassData *data;
} SluiceEncodedFilterClass;

static GstStaticPadTemplate encoded_sink_template = GST_STATIC_PAD_TEMPLATE("sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);
static GstStaticPadTemplate encoded_src_template = GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

static const SluiceEncodedFilterClassData *encoded_filter_data(gpointer instance) {
    return ((SluiceEncodedFilterClass *) G_OBJECT_GET_CLASS(instance))->data;
}

static void encoded_filter_set_property(GObject *obj, guint id, const GValue *value, GParamSpec *pspec) {
    const SluiceEncodedFilterClassData *d = encoded_filter_data(obj);
    if (id == 0 || id > d->n_properties) { G_OBJECT_WARN_INVALID_PROPERTY_ID(obj, id, pspec); return; }
    d->vtable.set_property(((SluiceEncodedFilter *) obj)->state, id - 1, value);
}

static void encoded_filter_get_property(GObject *obj, guint id, GValue *value, GParamSpec *pspec) {
    const SluiceEncodedFilterClassData *d = encoded_filter_data(obj);
    if (id == 0 || id > d->n_properties) { G_OBJECT_WARN_INVALID_PROPERTY_ID(obj, id, pspec); return; }
    d->vtable.get_property(((SluiceEncodedFilter *) obj)->state, id - 1, value);
}

static gboolean encoded_filter_set_caps(GstBaseTransform *t, GstCaps *in, GstCaps *out) {
    return encoded_filter_data(t)->vtable.set_caps(((SluiceEncodedFilter *) t)->state, in);
}

static GstFlowReturn encoded_filter_transform_ip(GstBaseTransform *t, GstBuffer *buffer) {
    SluiceEncodedFilter *self = (SluiceEncodedFilter *) t;
    gint r = encoded_filter_data(t)->vtable.process(self->state, buffer, self->frames++);
    if (r == 0) return GST_FLOW_OK;
    if (r == 1) return GST_BASE_TRANSFORM_FLOW_DROPPED;
    return GST_FLOW_ERROR;
}

static void encoded_filter_finalize(GObject *obj) {
    SluiceEncodedFilter *self = (SluiceEncodedFilter *) obj;
    if (self->state) encoded_filter_data(obj)->vtable.destroy(self->state);
    self->state = NULL;
    G_OBJECT_CLASS(g_type_class_peek_parent(G_OBJECT_GET_CLASS(obj)))->finalize(obj);
}

static void encoded_filter_class_init(gpointer klass, gpointer class_data) {
    const SluiceEncodedFilterClassData *d = class_data;
    ((SluiceEncodedFilterClass *) klass)->data = d;
    GObjectClass *oc = G_OBJECT_CLASS(klass);
    oc->set_property = encoded_filter_set_property;
    oc->get_property = encoded_filter_get_property;
    oc->finalize = encoded_filter_finalize;
    for (guint i = 0; i < d->n_properties; i++) g_object_class_install_property(oc, i + 1, d->properties[i]);
    GstElementClass *ec = GST_ELEMENT_CLASS(klass);
    gst_element_class_set_static_metadata(ec, d->longname, "Filter/Encoded", d->description, "Sluice");
    gst_element_class_add_static_pad_template(ec, &encoded_sink_template);
    gst_element_class_add_static_pad_template(ec, &encoded_src_template);
    GstBaseTransformClass *bt = GST_BASE_TRANSFORM_CLASS(klass);
    bt->transform_ip = encoded_filter_transform_ip;
    bt->set_caps = encoded_filter_set_caps;
    bt->passthrough_on_same_caps = FALSE;
}

static void encoded_filter_instance_init(GTypeInstance *instance, gpointer klass) {
    const SluiceEncodedFilterClassData *d = ((SluiceEncodedFilterClass *) klass)->data;
    SluiceEncodedFilter *self = (SluiceEncodedFilter *) instance;
    self->frames = 0;
    self->state = d->vtable.create(d->context, instance);
    gst_base_transform_set_in_place(GST_BASE_TRANSFORM(instance), TRUE);
}

GType sluice_encoded_filter_register(const gchar *type_name, const gchar *factory_name, const SluiceEncodedFilterClassData *data) {
    if (g_type_from_name(type_name)) return 0;
    GTypeInfo info = {
        sizeof(SluiceEncodedFilterClass), NULL, NULL, encoded_filter_class_init, NULL, data,
        sizeof(SluiceEncodedFilter), 0, encoded_filter_instance_init, NULL,
    };
    GType t = g_type_register_static(GST_TYPE_BASE_TRANSFORM, type_name, &info, 0);
    if (!t || !gst_element_register(NULL, factory_name, GST_RANK_NONE, t)) return 0;
    return t;
}

/* ---------------------------------------------------------------- payloader ---------- */

typedef struct {
    GstRTPBasePayload parent;
    gpointer state;
} SluicePayloader;

typedef struct {
    GstRTPBasePayloadClass parent;
    const SluicePayloaderClassData *data;
} SluicePayloaderClass;

static const SluicePayloaderClassData *payloader_data(gpointer instance) {
    return ((SluicePayloaderClass *) G_OBJECT_GET_CLASS(instance))->data;
}

static gboolean payloader_set_caps(GstRTPBasePayload *p, GstCaps *caps) {
    const SluicePayloaderClassData *d = payloader_data(p);
    gst_rtp_base_payload_set_options(p, d->media, TRUE, d->encoding_name, d->clock_rate);
    return gst_rtp_base_payload_set_outcaps(p, NULL);
}

static GstFlowReturn payloader_handle_buffer(GstRTPBasePayload *p, GstBuffer *buffer) {
    GstFlowReturn r = payloader_data(p)->vtable.handle(((SluicePayloader *) p)->state, p, buffer);
    gst_buffer_unref(buffer);
    return r;
}

static void payloader_finalize(GObject *obj) {
    SluicePayloader *self = (SluicePayloader *) obj;
    if (self->state) payloader_data(obj)->vtable.destroy(self->state);
    self->state = NULL;
    G_OBJECT_CLASS(g_type_class_peek_parent(G_OBJECT_GET_CLASS(obj)))->finalize(obj);
}

static void payloader_class_init(gpointer klass, gpointer class_data) {
    const SluicePayloaderClassData *d = class_data;
    ((SluicePayloaderClass *) klass)->data = d;
    G_OBJECT_CLASS(klass)->finalize = payloader_finalize;
    GstElementClass *ec = GST_ELEMENT_CLASS(klass);
    gst_element_class_set_static_metadata(ec, d->longname, "Codec/Payloader/Network/RTP", d->description, "Sluice");
    GstCaps *sink = gst_caps_from_string(d->sink_caps), *src = gst_caps_from_string(d->src_caps);
    gst_element_class_add_pad_template(ec, gst_pad_template_new("sink", GST_PAD_SINK, GST_PAD_ALWAYS, sink));
    gst_element_class_add_pad_template(ec, gst_pad_template_new("src", GST_PAD_SRC, GST_PAD_ALWAYS, src));
    gst_caps_unref(sink);
    gst_caps_unref(src);
    GstRTPBasePayloadClass *pc = GST_RTP_BASE_PAYLOAD_CLASS(klass);
    pc->set_caps = payloader_set_caps;
    pc->handle_buffer = payloader_handle_buffer;
}

static void payloader_instance_init(GTypeInstance *instance, gpointer klass) {
    const SluicePayloaderClassData *d = ((SluicePayloaderClass *) klass)->data;
    ((SluicePayloader *) instance)->state = d->vtable.create(d->context, instance);
}

GType sluice_payloader_register(const gchar *type_name, const gchar *factory_name, const SluicePayloaderClassData *data) {
    if (g_type_from_name(type_name)) return 0;
    GTypeInfo info = {
        sizeof(SluicePayloaderClass), NULL, NULL, payloader_class_init, NULL, data,
        sizeof(SluicePayloader), 0, payloader_instance_init, NULL,
    };
    GType t = g_type_register_static(GST_TYPE_RTP_BASE_PAYLOAD, type_name, &info, 0);
    if (!t || !gst_element_register(NULL, factory_name, GST_RANK_NONE, t)) return 0;
    return t;
}

/* ------------------------------------------------------------- audio source ---------- */

typedef struct {
    GstPushSrc parent;
    gpointer state;
    gint rate, channels, samples_per_buffer;
    gchar *format;
    GstAudioInfo info;
    guint64 samples;
} SluiceAudioSource;

typedef struct {
    GstPushSrcClass parent;
    const SluiceAudioSourceClassData *data;
} SluiceAudioSourceClass;

enum { ASRC_PROP_0, ASRC_PROP_RATE, ASRC_PROP_CHANNELS, ASRC_PROP_FORMAT, ASRC_PROP_SPB };

static const SluiceAudioSourceClassData *audio_source_data(gpointer instance) {
    return ((SluiceAudioSourceClass *) G_OBJECT_GET_CLASS(instance))->data;
}

static void audio_source_set_property(GObject *obj, guint id, const GValue *value, GParamSpec *pspec) {
    SluiceAudioSource *s = (SluiceAudioSource *) obj;
    switch (id) {
    case ASRC_PROP_RATE: s->rate = g_value_get_int(value); break;
    case ASRC_PROP_CHANNELS: s->channels = g_value_get_int(value); break;
    case ASRC_PROP_FORMAT: g_free(s->format); s->format = g_value_dup_string(value); break;
    case ASRC_PROP_SPB: s->samples_per_buffer = g_value_get_int(value); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(obj, id, pspec);
    }
}

static void audio_source_get_property(GObject *obj, guint id, GValue *value, GParamSpec *pspec) {
    SluiceAudioSource *s = (SluiceAudioSource *) obj;
    switch (id) {
    case ASRC_PROP_RATE: g_value_set_int(value, s->rate); break;
    case ASRC_PROP_CHANNELS: g_value_set_int(value, s->channels); break;
    case ASRC_PROP_FORMAT: g_value_set_string(value, s->format); break;
    case ASRC_PROP_SPB: g_value_set_int(value, s->samples_per_buffer); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(obj, id, pspec);
    }
}

/* The one format the properties describe, intersected with what downstream accepts. */
static GstCaps *audio_source_get_caps(GstBaseSrc *src, GstCaps *filter) {
    SluiceAudioSource *s = (SluiceAudioSource *) src;
    GstAudioInfo info;
    gst_audio_info_init(&info);
    gst_audio_info_set_format(&info, gst_audio_format_from_string(s->format), s->rate, s->channels, NULL);
    GstCaps *caps = gst_audio_info_to_caps(&info);
    if (caps && filter) {
        GstCaps *i = gst_caps_intersect_full(filter, caps, GST_CAPS_INTERSECT_FIRST);
        gst_caps_unref(caps);
        caps = i;
    }
    return caps ? caps : gst_caps_new_empty();
}

static gboolean audio_source_set_caps(GstBaseSrc *src, GstCaps *caps) {
    SluiceAudioSource *s = (SluiceAudioSource *) src;
    if (!gst_audio_info_from_caps(&s->info, caps)) return FALSE;
    gst_base_src_set_blocksize(src, (guint) (s->samples_per_buffer * GST_AUDIO_INFO_BPF(&s->info)));
    return audio_source_data(src)->vtable.setup(s->state, &s->info);
}

static gboolean audio_source_start(GstBaseSrc *src) {
    ((SluiceAudioSource *) src)->samples = 0;
    return TRUE;
}

static GstFlowReturn audio_source_fill(GstPushSrc *src, GstBuffer *buf) {
    SluiceAudioSource *s = (SluiceAudioSource *) src;
    gint rate = GST_AUDIO_INFO_RATE(&s->info) > 0 ? GST_AUDIO_INFO_RATE(&s->info) : 48000;
    gint bpf = GST_AUDIO_INFO_BPF(&s->info) > 0 ? GST_AUDIO_INFO_BPF(&s->info) : 1;
    GstMapInfo map;
    if (!gst_buffer_map(buf, &map, GST_MAP_WRITE)) return GST_FLOW_ERROR;
    guint64 n = map.size / (gsize) bpf;
    gboolean more = audio_source_data(src)->vtable.fill(s->state, map.data, n * (gsize) bpf, s->samples);
    gst_buffer_unmap(buf, &map);
    GST_BUFFER_PTS(buf) = gst_util_uint64_scale_int(s->samples, GST_SECOND, rate);
    GST_BUFFER_DTS(buf) = GST_CLOCK_TIME_NONE;
    GST_BUFFER_DURATION(buf) = gst_util_uint64_scale_int(s->samples + n, GST_SECOND, rate) - GST_BUFFER_PTS(buf);
    GST_BUFFER_OFFSET(buf) = s->samples;
    GST_BUFFER_OFFSET_END(buf) = s->samples + n;
    if (s->samples == 0) GST_BUFFER_FLAG_SET(buf, GST_BUFFER_FLAG_DISCONT);
    s->samples += n;
    return more ? GST_FLOW_OK : GST_FLOW_EOS;
}

static void audio_source_finalize(GObject *obj) {
    SluiceAudioSource *s = (SluiceAudioSource *) obj;
    if (s->state) audio_source_data(obj)->vtable.destroy(s->state);
    s->state = NULL;
    g_free(s->format);
    G_OBJECT_CLASS(g_type_class_peek_parent(G_OBJECT_GET_CLASS(obj)))->finalize(obj);
}

static void audio_source_class_init(gpointer klass, gpointer class_data) {
    const SluiceAudioSourceClassData *d = class_data;
    ((SluiceAudioSourceClass *) klass)->data = d;
    GObjectClass *oc = G_OBJECT_CLASS(klass);
    oc->set_property = audio_source_set_property;
    oc->get_property = audio_source_get_property;
    oc->finalize = audio_source_finalize;
    GParamFlags rw = (GParamFlags) (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
    g_object_class_install_property(oc, ASRC_PROP_RATE, g_param_spec_int("rate", "Rate", "Samples per second", 8000, 192000, 48000, rw));
    g_object_class_install_property(oc, ASRC_PROP_CHANNELS, g_param_spec_int("channels", "Channels", "Interleaved channels", 1, 8, 2, rw));
    g_object_class_install_property(oc, ASRC_PROP_FORMAT, g_param_spec_string("format", "Format", "Raw audio format", "F32LE", rw));
    g_object_class_install_property(oc, ASRC_PROP_SPB,
        g_param_spec_int("samples-per-buffer", "Samples per buffer", "Samples per channel in each buffer", 1, 192000, 480, rw));
    GstElementClass *ec = GST_ELEMENT_CLASS(klass);
    gst_element_class_set_static_metadata(ec, d->longname, "Source/Audio", d->description, "Sluice");
    GstCaps *caps = gst_caps_from_string(d->caps);
    gst_element_class_add_pad_template(ec, gst_pad_template_new("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
    gst_caps_unref(caps);
    GstBaseSrcClass *bs = GST_BASE_SRC_CLASS(klass);
    bs->get_caps = audio_source_get_caps;
    bs->set_caps = audio_source_set_caps;
    bs->start = audio_source_start;
    bs->get_times = source_get_times;
    GST_PUSH_SRC_CLASS(klass)->fill = audio_source_fill;
}

static void audio_source_instance_init(GTypeInstance *instance, gpointer klass) {
    const SluiceAudioSourceClassData *d = ((SluiceAudioSourceClass *) klass)->data;
    SluiceAudioSource *s = (SluiceAudioSource *) instance;
    s->rate = 48000; s->channels = 2; s->samples_per_buffer = 480; s->format = g_strdup("F32LE"); s->samples = 0;
    gst_audio_info_init(&s->info);
    s->state = d->vtable.create(d->context, instance);
    gst_base_src_set_live(GST_BASE_SRC(instance), TRUE);
    gst_base_src_set_format(GST_BASE_SRC(instance), GST_FORMAT_TIME);
}

GType sluice_audio_source_register(const gchar *type_name, const gchar *factory_name, const SluiceAudioSourceClassData *data) {
    if (g_type_from_name(type_name)) return 0;
    GTypeInfo info = {
        sizeof(SluiceAudioSourceClass), NULL, NULL, audio_source_class_init, NULL, data,
        sizeof(SluiceAudioSource), 0, audio_source_instance_init, NULL,
    };
    GType t = g_type_register_static(GST_TYPE_PUSH_SRC, type_name, &info, 0);
    if (!t || !gst_element_register(NULL, factory_name, GST_RANK_NONE, t)) return 0;
    return t;
}

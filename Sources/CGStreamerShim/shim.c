#include "CGStreamerShim.h"

GType sluice_type_boolean(void) { return G_TYPE_BOOLEAN; }
GType sluice_type_int(void) { return G_TYPE_INT; }
GType sluice_type_uint(void) { return G_TYPE_UINT; }
GType sluice_type_int64(void) { return G_TYPE_INT64; }
GType sluice_type_uint64(void) { return G_TYPE_UINT64; }
GType sluice_type_double(void) { return G_TYPE_DOUBLE; }
GType sluice_type_float(void) { return G_TYPE_FLOAT; }
GType sluice_type_string(void) { return G_TYPE_STRING; }
GType sluice_type_enum(void) { return G_TYPE_ENUM; }
GType sluice_type_flags(void) { return G_TYPE_FLAGS; }
GType sluice_type_object(void) { return G_TYPE_OBJECT; }
GType sluice_type_boxed(void) { return G_TYPE_BOXED; }
GType sluice_type_pointer(void) { return G_TYPE_POINTER; }
GType sluice_type_caps(void) { return GST_TYPE_CAPS; }
GType sluice_type_structure(void) { return GST_TYPE_STRUCTURE; }
G_GNUC_BEGIN_IGNORE_DEPRECATIONS
GType sluice_type_value_array(void) { return G_TYPE_VALUE_ARRAY; }
G_GNUC_END_IGNORE_DEPRECATIONS
GType sluice_type_promise(void) { return GST_TYPE_PROMISE; }
GType sluice_type_element(void) { return GST_TYPE_ELEMENT; }
GType sluice_type_pad(void) { return GST_TYPE_PAD; }
GType sluice_type_webrtc_session_description(void) { return GST_TYPE_WEBRTC_SESSION_DESCRIPTION; }
GType sluice_type_webrtc_rtp_transceiver(void) { return GST_TYPE_WEBRTC_RTP_TRANSCEIVER; }


GType sluice_param_spec_value_type(GParamSpec *pspec) { return G_PARAM_SPEC_VALUE_TYPE(pspec); }
GType sluice_value_type(const GValue *value) { return G_VALUE_TYPE(value); }
gboolean sluice_is_gst_object(gpointer instance) { return GST_IS_OBJECT(instance); }
const gchar *sluice_object_type_name(gpointer instance) { return G_OBJECT_TYPE_NAME(instance); }

GstClockTime sluice_buffer_pts(GstBuffer *buffer) { return GST_BUFFER_PTS(buffer); }
GstClockTime sluice_buffer_duration(GstBuffer *buffer) { return GST_BUFFER_DURATION(buffer); }
GstBuffer *sluice_pad_probe_info_buffer(GstPadProbeInfo *info) { return GST_PAD_PROBE_INFO_BUFFER(info); }
GstEvent *sluice_pad_probe_info_event(GstPadProbeInfo *info) { return GST_PAD_PROBE_INFO_EVENT(info); }
GRecMutex *sluice_element_state_lock(GstElement *element) { return GST_STATE_GET_LOCK(element); }
GRecMutex *sluice_pad_stream_lock(GstPad *pad) { return GST_PAD_GET_STREAM_LOCK(pad); }

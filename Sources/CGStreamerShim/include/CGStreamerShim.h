#ifndef CGSTREAMER_SHIM_PUBLIC_H
#define CGSTREAMER_SHIM_PUBLIC_H
/*
 * What Swift cannot import from the GStreamer headers: type macros that expand to
 * function calls or shifted constants, and cast/accessor macros. No logic lives here.
 */
#define GST_USE_UNSTABLE_API 1
#include <gst/gst.h>
#include <gst/webrtc/webrtc.h>
#include "SluiceElements.h"

GType sluice_type_boolean(void);
GType sluice_type_int(void);
GType sluice_type_uint(void);
GType sluice_type_int64(void);
GType sluice_type_uint64(void);
GType sluice_type_double(void);
GType sluice_type_float(void);
GType sluice_type_string(void);
GType sluice_type_enum(void);
GType sluice_type_flags(void);
GType sluice_type_object(void);
GType sluice_type_boxed(void);
GType sluice_type_pointer(void);
GType sluice_type_caps(void);
GType sluice_type_structure(void);
/// G_TYPE_VALUE_ARRAY (deprecated in GLib, still what rtpsession reports TWCC packets in).
GType sluice_type_value_array(void);
GType sluice_type_promise(void);
GType sluice_type_element(void);
GType sluice_type_pad(void);
GType sluice_type_webrtc_session_description(void);
GType sluice_type_webrtc_rtp_transceiver(void);


/* G_PARAM_SPEC_VALUE_TYPE and friends. */
GType sluice_param_spec_value_type(GParamSpec *pspec);
GType sluice_value_type(const GValue *value);
gboolean sluice_is_gst_object(gpointer instance);
const gchar *sluice_object_type_name(gpointer instance);

/* GST_BUFFER_PTS / DURATION / FLAGS accessors. */
GstClockTime sluice_buffer_pts(GstBuffer *buffer);
GstClockTime sluice_buffer_duration(GstBuffer *buffer);
GstBuffer *sluice_pad_probe_info_buffer(GstPadProbeInfo *info);
GstEvent *sluice_pad_probe_info_event(GstPadProbeInfo *info);

/* GST_STATE_GET_LOCK: the recursive mutex gst_element_set_state holds for a whole change. */
GRecMutex *sluice_element_state_lock(GstElement *element);
/* GST_PAD_GET_STREAM_LOCK: the recursive mutex a sink pad's chain (and a src pad's task) holds. */
GRecMutex *sluice_pad_stream_lock(GstPad *pad);
#endif

/* The benchmark's C reference: the same operation as Plugins/grayscale (neutral chroma for
   I420/NV12; BT.601 luma into R, G, B for RGBA/BGRx, alpha/x kept), as a C GstVideoFilter. */
#include <string.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/video/gstvideofilter.h>
#include "cgrayscale.h"

typedef struct { GstVideoFilter parent; } CGrayscale;
typedef struct { GstVideoFilterClass parent_class; } CGrayscaleClass;

G_DEFINE_TYPE(CGrayscale, cgrayscale, GST_TYPE_VIDEO_FILTER)

#define CAPS "video/x-raw, format=(string){ I420, NV12, RGBA, BGRx }"

static void neutral(GstVideoFrame *f, guint plane, guint bytes_per_sample) {
    guint8 *p = GST_VIDEO_FRAME_PLANE_DATA(f, plane);
    gint stride = GST_VIDEO_FRAME_PLANE_STRIDE(f, plane);
    gint w = GST_VIDEO_FRAME_COMP_WIDTH(f, plane == 2 ? 2 : 1) * bytes_per_sample;
    gint h = GST_VIDEO_FRAME_COMP_HEIGHT(f, plane == 2 ? 2 : 1);
    for (gint y = 0; y < h; y++) memset(p + (gsize) y * stride, 128, w);
}

static void gray_packed(GstVideoFrame *f, guint32 w0, guint32 w2) {
    guint8 *p = GST_VIDEO_FRAME_PLANE_DATA(f, 0);
    gint stride = GST_VIDEO_FRAME_PLANE_STRIDE(f, 0);
    gint w = GST_VIDEO_FRAME_WIDTH(f), h = GST_VIDEO_FRAME_HEIGHT(f);
    for (gint y = 0; y < h; y++) {
        guint32 *row = (guint32 *) (p + (gsize) y * stride);
        for (gint x = 0; x < w; x++) {
            guint32 v = row[x];
            guint32 l = ((v & 0xff) * w0 + ((v >> 8) & 0xff) * 150 + ((v >> 16) & 0xff) * w2 + 128) >> 8;
            row[x] = (v & 0xff000000u) | (l * 0x010101u);
        }
    }
}

static GstFlowReturn cgrayscale_transform_frame_ip(GstVideoFilter *filter, GstVideoFrame *f) {
    (void) filter;
    switch (GST_VIDEO_FRAME_FORMAT(f)) {
    case GST_VIDEO_FORMAT_I420: neutral(f, 1, 1); neutral(f, 2, 1); break;
    case GST_VIDEO_FORMAT_NV12: neutral(f, 1, 2); break;
    case GST_VIDEO_FORMAT_RGBA: gray_packed(f, 77, 29); break;
    case GST_VIDEO_FORMAT_BGRx: gray_packed(f, 29, 77); break;
    default: return GST_FLOW_NOT_NEGOTIATED;
    }
    return GST_FLOW_OK;
}

static void cgrayscale_class_init(CGrayscaleClass *klass) {
    GstElementClass *ec = GST_ELEMENT_CLASS(klass);
    gst_element_class_set_static_metadata(ec, "C grayscale (benchmark reference)", "Filter/Effect/Video",
                                          "Neutral chroma / BT.601 luma, in C", "Sluice");
    GstCaps *caps = gst_caps_from_string(CAPS);
    gst_element_class_add_pad_template(ec, gst_pad_template_new("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
    gst_element_class_add_pad_template(ec, gst_pad_template_new("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
    gst_caps_unref(caps);
    GST_VIDEO_FILTER_CLASS(klass)->transform_frame_ip = cgrayscale_transform_frame_ip;
}

static void cgrayscale_init(CGrayscale *self) {
    gst_base_transform_set_in_place(GST_BASE_TRANSFORM(self), TRUE);
    gst_base_transform_set_qos_enabled(GST_BASE_TRANSFORM(self), TRUE);
}

int bench_cgrayscale_register(void) {
    return gst_element_register(NULL, "cgrayscale", GST_RANK_NONE, cgrayscale_get_type());
}

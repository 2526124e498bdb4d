#ifndef CGSTREAMER_SHIM_H
#define CGSTREAMER_SHIM_H
/* webrtcbin's helper libraries are marked unstable API in 1.22; we pin 1.22 exactly. */
#define GST_USE_UNSTABLE_API 1
#include <gst/gst.h>
#include <gst/sdp/sdp.h>
#include <gst/rtp/rtp.h>
#include <gst/webrtc/webrtc.h>
#include <gst/webrtc/nice/nice.h>
#include <gst/video/video.h>
#include <gst/audio/audio.h>
#include <gst/app/app.h>
#include <nice/agent.h>
#endif

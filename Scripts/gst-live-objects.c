/*
 * LD_PRELOAD helper for Scripts/memcheck.sh: at process exit, asks GStreamer's `leaks`
 * tracer (GST_TRACERS=leaks) for every GstObject and GstMiniObject still alive and prints
 * one "gst-live-objects:" line per object on stderr.
 *
 * Valgrind and LeakSanitizer cannot see a GObject kept alive by a reference cycle through
 * a Swift closure (object -> signal handler or pad probe -> closure -> wrapper -> object):
 * GLib's global signal-handler table keeps the whole cycle reachable. The tracer counts
 * references instead, so it does.
 *
 * SLUICE_LEAKS_GRACE_MS=N waits N ms first, so that threads that are about to let go of
 * their last reference (the bus reader of Bus.messages() polls every 100 ms) can.
 *
 * Build: gcc -shared -fPIC -o gst-live-objects.so gst-live-objects.c \
 *            $(pkg-config --cflags --libs gstreamer-1.0)
 */
#include <gst/gst.h>
#include <stdio.h>

__attribute__((destructor)) static void sluice_report_live_objects(void) {
  if (!gst_is_initialized()) return;
  const char *grace = g_getenv("SLUICE_LEAKS_GRACE_MS");
  if (grace) g_usleep(1000 * (gulong)g_ascii_strtoull(grace, NULL, 10));

  GList *tracers = gst_tracing_get_active_tracers();
  gboolean found = FALSE;
  for (GList *l = tracers; l; l = l->next) {
    if (!g_signal_lookup("get-live-objects", G_OBJECT_TYPE(l->data))) continue;
    found = TRUE;
    GstStructure *info = NULL;
    g_signal_emit_by_name(l->data, "get-live-objects", &info);
    const GValue *list = info ? gst_structure_get_value(info, "live-objects-list") : NULL;
    guint n = list ? gst_value_list_get_size(list) : 0;
    fprintf(stderr, "gst-live-objects: %u alive at exit\n", n);
    for (guint i = 0; i < n; i++) {
      const GstStructure *o = gst_value_get_structure(gst_value_list_get_value(list, i));
      const GValue *ov = gst_structure_get_value(o, "object");
      guint refs = 0;
      gst_structure_get_uint(o, "ref-count", &refs);
      const char *type = ov ? g_type_name(G_VALUE_TYPE(ov)) : "?";
      gchar *name = NULL;
      if (ov && G_VALUE_HOLDS(ov, GST_TYPE_OBJECT)) {
        GstObject *obj = g_value_get_object(ov);
        name = obj ? gst_object_get_name(obj) : NULL;
      }
      fprintf(stderr, "gst-live-objects: %s '%s' refcount=%u\n", type, name ? name : "", refs);
      g_free(name);
    }
    if (info) gst_structure_free(info);
  }
  if (!found) fprintf(stderr, "gst-live-objects: no leaks tracer (set GST_TRACERS=leaks)\n");
  g_list_free_full(tracers, gst_object_unref);
}

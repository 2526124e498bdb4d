#ifndef SLUICE_PLUGIN_H
#define SLUICE_PLUGIN_H
/*
 * The C interface between Sluice and a dynamic filter plugin (a shared library named in a
 * pipeline file's `plugins:`). Sluice dlopen()s the library, calls its entry point
 * `sluice_plugin_v1`, checks `abi_version`, and registers every filter it describes.
 *
 * Swift plugins do not write this by hand: SluiceFilterKit's `SluicePluginExport` builds
 * the table from `FrameFilter` types (see Plugins/ExamplePlugin).
 *
 * Version 1. A change to any struct here bumps SLUICE_PLUGIN_ABI_VERSION.
 */
#include <stdint.h>

#define SLUICE_PLUGIN_ABI_VERSION 1u
#define SLUICE_PLUGIN_ENTRY "sluice_plugin_v1"

/* Pixel formats, by number. */
enum { SLUICE_FORMAT_I420 = 0, SLUICE_FORMAT_NV12 = 1, SLUICE_FORMAT_RGBA = 2, SLUICE_FORMAT_BGRX = 3 };

/* One frame, mapped for the duration of the call. */
typedef struct {
    uint32_t format;
    int32_t width, height;
    uint32_t n_planes;
    uint8_t *data[3];
    int32_t stride[3];
    uint64_t pts;          /* UINT64_MAX: none */
    uint64_t duration;     /* UINT64_MAX: none */
    uint64_t frame_number;
} SluiceFrameV1;

/* Emits an event (name, fields as a JSON object of numbers) through Sluice. */
typedef void (*SluiceEmitV1)(void *emit_context, const char *event, const char *fields_json);

typedef struct {
    const char *name;            /* used as `- filter: NAME` */
    const char *summary;
    const char *formats;         /* comma-separated: "I420,NV12,RGBA,BGRx" */
    const char *parameters_json; /* JSON array of SluiceFilterKit.FilterParameter */
    int32_t modifies_pixels;
    const void *type_context;    /* passed back to create */
    /* An instance from a validated configuration (JSON object name -> FilterValue). On
       failure returns NULL and sets *error to a message freed with free_string. */
    void *(*create)(const void *type_context, const char *configuration_json, char **error);
    void (*destroy)(void *instance);
    /* 0 keep, 1 drop, -1 error (*error set as above). */
    int32_t (*process)(void *instance, SluiceFrameV1 *frame, SluiceEmitV1 emit, void *emit_context, char **error);
    void (*free_string)(char *text);
} SluiceFilterV1;

typedef struct {
    uint32_t abi_version;        /* SLUICE_PLUGIN_ABI_VERSION the plugin was built with */
    uint32_t filter_count;
    const SluiceFilterV1 *filters;
    const char *plugin_name;
} SluicePluginV1;

/* The entry point every plugin exports. */
typedef const SluicePluginV1 *(*SluicePluginEntryV1)(void);
#endif

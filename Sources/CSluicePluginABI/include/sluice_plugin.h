#ifndef SLUICE_PLUGIN_H
#define SLUICE_PLUGIN_H
/*
 * The C interface between Sluice and a dynamic filter plugin (a shared library named in a
 * pipeline file's `plugins:`). Sluice dlopen()s the library, calls its entry point
 * `sluice_plugin_v2` if it has one, else `sluice_plugin_v1`, checks `abi_version`, and
 * registers every filter it describes (docs/plugin-abi.md).
 *
 * Swift plugins do not write this by hand: SluiceFilterKit's `SluicePluginExport` builds
 * the tables from `FrameFilter` and `AudioFilter` types (see Plugins/ExamplePlugin).
 *
 * Version 1 (video filters) and version 2 (video, audio and encoded-frame filters). Version
 * 1's structs never change; version 2's carry `struct_size`, so fields may be appended.
 */
#include <stddef.h>
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

/* The entry point of a version-1 plugin. */
typedef const SluicePluginV1 *(*SluicePluginEntryV1)(void);

/* ---------------------------------------------------------------- version 2 ---------- */

#define SLUICE_PLUGIN_ABI_VERSION_2 2u
#define SLUICE_PLUGIN_ENTRY_V2 "sluice_plugin_v2"

/* Audio sample formats, by number; samples are interleaved. */
enum { SLUICE_AUDIO_S16LE = 0, SLUICE_AUDIO_F32LE = 1 };

/* One buffer of audio, mapped for the duration of the call. */
typedef struct {
    uint32_t format;             /* SLUICE_AUDIO_* */
    int32_t rate, channels;      /* as the caps bring them; may change between calls */
    uint32_t frames;             /* samples per channel in this buffer */
    void *data;                  /* interleaved; writable unless the filter is analysis-only */
    uint64_t pts, duration;      /* UINT64_MAX: none */
    uint64_t sample_offset;      /* samples per channel the element handled before this buffer */
} SluiceAudioBufferV2;

typedef struct {
    uint32_t struct_size;        /* sizeof(SluiceAudioFilterV2) as the plugin was built */
    const char *name;            /* `- filter: NAME` in an audio branch */
    const char *summary;
    const char *formats;         /* comma-separated: "S16LE,F32LE" */
    const char *parameters_json; /* JSON array of SluiceFilterKit.FilterParameter */
    int32_t modifies_samples;
    const void *type_context;
    void *(*create)(const void *type_context, const char *configuration_json, char **error);
    void (*destroy)(void *instance);
    /* 0 keep, 1 drop (the buffer becomes silence of the same length), -1 error. */
    int32_t (*process)(void *instance, SluiceAudioBufferV2 *buffer, SluiceEmitV1 emit, void *emit_context, char **error);
    void (*free_string)(char *text);
} SluiceAudioFilterV2;

/* Codecs of encoded frames, by number. */
enum { SLUICE_CODEC_VP8 = 0, SLUICE_CODEC_VP9 = 1, SLUICE_CODEC_H264 = 2, SLUICE_CODEC_OPUS = 3 };

/* One whole encoded frame, read-only, for the duration of the call. */
typedef struct {
    uint32_t codec;              /* SLUICE_CODEC_* */
    uint32_t flags;              /* bit 0: keyframe; bit 1: sending side */
    uint64_t pts, dts;           /* UINT64_MAX: none */
    const uint8_t *data;
    size_t size;
    uint32_t stream;             /* which stream of the pipeline, stable for a run */
} SluiceEncodedFrameV2;

/* Where a filter writes a replacement frame and per-frame metadata. */
typedef struct {
    void *context;
    uint8_t *(*reserve)(void *context, size_t size);                  /* the output's bytes, owned by Sluice */
    void (*attach)(void *context, const char *key, const char *json); /* receiving side: events and report */
} SluiceEncodedOutputV2;

typedef struct {
    uint32_t struct_size;        /* sizeof(SluiceEncodedFilterV2) as the plugin was built */
    const char *name;
    const char *summary;
    const char *codecs;          /* comma-separated: "VP8,H264,OPUS" */
    const char *parameters_json;
    const void *type_context;
    void *(*create)(const void *type_context, const char *configuration_json, char **error);
    void (*destroy)(void *instance);
    /* 0 keep, 1 drop, 2 replace with the bytes written through output->reserve, -1 error. */
    int32_t (*process)(void *instance, const SluiceEncodedFrameV2 *frame, const SluiceEncodedOutputV2 *output,
                       SluiceEmitV1 emit, void *emit_context, char **error);
    void (*free_string)(char *text);
} SluiceEncodedFilterV2;

typedef struct {
    uint32_t abi_version;        /* SLUICE_PLUGIN_ABI_VERSION_2 */
    uint32_t struct_size;        /* sizeof(SluicePluginV2) as the plugin was built */
    const char *plugin_name;
    uint32_t video_filter_count;
    const SluiceFilterV1 *video_filters;
    uint32_t audio_filter_count;
    const SluiceAudioFilterV2 *audio_filters;
    uint32_t encoded_filter_count;
    const SluiceEncodedFilterV2 *encoded_filters;
} SluicePluginV2;

/* The entry point of a version-2 plugin. */
typedef const SluicePluginV2 *(*SluicePluginEntryV2)(void);
#endif

#ifndef BENCH_CGRAYSCALE_H
#define BENCH_CGRAYSCALE_H
/* Registers `cgrayscale`: the grayscale operation of Plugins/grayscale written as a plain C
   GstVideoFilter, the reference the Swift filter is benchmarked against. */
int bench_cgrayscale_register(void);
#endif

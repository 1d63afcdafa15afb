/* LMDB, the reference backend: used by tests, fuzzing and benchmarks only. */
#include <lmdb.h>

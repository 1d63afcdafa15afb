/* report.h — collected results, the table on stdout and the JSON file. */
#ifndef BENCH_REPORT_H
#define BENCH_REPORT_H

#include "bench.h"

#define MAX_ENGINES 3
#define MAX_REPS 32

typedef struct bench_run {
    bench_cfg cfg;
    unsigned reps;
    bool quick;
    char date[32];
    const char *dir;                       /* where the databases lived  */
    const char *source_rev;                /* git revision of the engine */
    char load_start[64], load_end[64];     /* /proc/loadavg around the run */
    size_t n_engines;
    const bench_driver *engines[MAX_ENGINES];
    bool selected[64];                     /* per workload: reported     */
    bench_result res[64][MAX_ENGINES][MAX_REPS];
} bench_run;

void report_table(const bench_run *run);
int report_json(const bench_run *run, const char *path);

#endif

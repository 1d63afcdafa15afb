/* report.c — medians, the human table and the machine-readable JSON. */
#include "report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct stat3 {
    double med, min, max;
} stat3;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static stat3 stats(const bench_run *run, size_t w, size_t e)
{
    double v[MAX_REPS];
    for (unsigned r = 0; r < run->reps; r++)
        v[r] = run->res[w][e][r].value;
    qsort(v, run->reps, sizeof v[0], cmp_double);
    unsigned n = run->reps;
    double med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    return (stat3){med, v[0], v[n - 1]};
}

static int engine_index(const bench_run *run, const char *name)
{
    for (size_t e = 0; e < run->n_engines; e++)
        if (!strcmp(run->engines[e]->name, name))
            return (int)e;
    return -1;
}

/* 1234567 -> "1.23M"; bytes -> "117.7MB". */
static const char *human(double v, bool bytes, char *buf, size_t len)
{
    const char *sfx[] = {"", "k", "M", "G", "T"}, *bsfx[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double d = bytes ? 1024 : 1000;
    int i = 0;
    while (fabs(v) >= d && i < 4) {
        v /= d;
        i++;
    }
    snprintf(buf, len, "%.*f%s", i ? (v < 10 ? 2 : v < 100 ? 1 : 0) : 0, v, bytes ? bsfx[i] : sfx[i]);
    return buf;
}

/* Median over the repetitions of one per-commit I/O figure. */
static double io_med(const bench_run *run, size_t w, size_t e, bool with_close, int field)
{
    double v[MAX_REPS];
    for (unsigned r = 0; r < run->reps; r++) {
        const bench_result *br = &run->res[w][e][r];
        const iocount *c = with_close ? &br->io_close : &br->io;
        uint64_t x = field == 0 ? c->bytes : field == 1 ? c->writes : c->flushes;
        v[r] = br->io_commits ? (double)x / (double)br->io_commits : 0;
    }
    qsort(v, run->reps, sizeof v[0], cmp_double);
    unsigned n = run->reps;
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Bytes written and flushes per durable commit (iocount.h), medians. */
static void report_io_table(const bench_run *run)
{
    bool any = false;
    for (size_t w = 0; w < n_workloads; w++)
        any |= run->selected[w] && run->res[w][0][0].io_commits > 0;
    if (!any)
        return;
    printf("\nI/O per durable commit (one put; counted at the libc boundary; "
           "\"+close\": the close after the commits spread over them)\n");
    printf("%-20s %-9s %9s %10s %8s %8s %10s %8s\n", "workload", "engine", "entries", "bytes", "writes",
           "flushes", "+close B", "+close F");
    for (size_t w = 0; w < n_workloads; w++) {
        if (!run->selected[w] || !run->res[w][0][0].io_commits)
            continue;
        for (size_t e = 0; e < run->n_engines; e++)
            printf("%-20s %-9s %9llu %10.0f %8.2f %8.2f %10.0f %8.2f\n", workloads[w].name,
                   run->engines[e]->name, (unsigned long long)run->res[w][e][0].io_entries,
                   io_med(run, w, e, false, 0), io_med(run, w, e, false, 1), io_med(run, w, e, false, 2),
                   io_med(run, w, e, true, 0), io_med(run, w, e, true, 2));
    }
}

void report_table(const bench_run *run)
{
    int cs = engine_index(run, "cstorage");
    printf("\nEngine tier: N=%llu, key %u B, value %u B, %u repetition(s); "
           "median [min..max] ops/s (size rows: bytes, lower is better)\n",
           (unsigned long long)run->cfg.n, run->cfg.key_size, run->cfg.value_size, run->reps);
    printf("%-20s", "workload");
    for (size_t e = 0; e < run->n_engines; e++)
        printf(" %-27s", run->engines[e]->name);
    if (cs >= 0)
        for (size_t e = 0; e < run->n_engines; e++)
            if ((int)e != cs)
                printf(" cs/%-7s", run->engines[e]->name);
    printf("\n");
    for (size_t w = 0; w < n_workloads; w++) {
        if (!run->selected[w])
            continue;
        bool bytes = !strcmp(workloads[w].unit, "bytes");
        printf("%-20s", workloads[w].name);
        for (size_t e = 0; e < run->n_engines; e++) {
            stat3 s = stats(run, w, e);
            char a[16], b[16], c[16], cell[64];
            snprintf(cell, sizeof cell, "%s [%s..%s]", human(s.med, bytes, a, sizeof a),
                     human(s.min, bytes, b, sizeof b), human(s.max, bytes, c, sizeof c));
            printf(" %-27s", cell);
        }
        if (cs >= 0) {
            double csm = stats(run, w, (size_t)cs).med;
            for (size_t e = 0; e < run->n_engines; e++)
                if ((int)e != cs) {
                    double m = stats(run, w, e).med;
                    printf(" %9.2fx", m > 0 ? csm / m : 0);
                }
        }
        printf("\n");
    }
    report_io_table(run);
    fflush(stdout);
}

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(f, "\\u%04x", *s);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

static void json_engine_result(FILE *f, const bench_run *run, size_t w, size_t e)
{
    stat3 s = stats(run, w, e);
    fprintf(f, "{\"median\": %.6g, \"min\": %.6g, \"max\": %.6g, \"runs\": [", s.med, s.min, s.max);
    for (unsigned r = 0; r < run->reps; r++)
        fprintf(f, "%s%.6g", r ? ", " : "", run->res[w][e][r].value);
    fprintf(f, "], \"secs\": [");
    for (unsigned r = 0; r < run->reps; r++)
        fprintf(f, "%s%.6g", r ? ", " : "", run->res[w][e][r].secs);
    fprintf(f, "], \"cpu_secs\": [");
    for (unsigned r = 0; r < run->reps; r++)
        fprintf(f, "%s%.6g", r ? ", " : "", run->res[w][e][r].cpu_secs);
    fprintf(f, "]");
    const char *names[2] = {workloads[w].extra_name, workloads[w].extra2_name};
    for (int x = 0; x < 2; x++) {
        if (!names[x])
            continue;
        fprintf(f, ", ");
        json_str(f, names[x]);
        fprintf(f, ": [");
        for (unsigned r = 0; r < run->reps; r++) {
            const bench_result *br = &run->res[w][e][r];
            fprintf(f, "%s%llu", r ? ", " : "", (unsigned long long)(x ? br->extra2 : br->extra));
        }
        fprintf(f, "]");
    }
    if (run->res[w][e][0].io_commits) {
        /* Per repetition: commits, then totals of the commits alone and
         * with the close; proc_* = /proc/self/io, any descriptor. */
        fprintf(f, ", \"io\": [");
        for (unsigned r = 0; r < run->reps; r++) {
            const bench_result *br = &run->res[w][e][r];
            const iocount *c = &br->io, *k = &br->io_close;
            fprintf(f, "%s{\"entries\": %llu, \"commits\": %llu, \"bytes\": %llu, \"writes\": %llu, "
                       "\"flushes\": %llu, \"proc_wchar\": %llu, \"proc_syscw\": %llu, \"close_bytes\": %llu, "
                       "\"close_writes\": %llu, \"close_flushes\": %llu}",
                    r ? ", " : "", (unsigned long long)br->io_entries, (unsigned long long)br->io_commits,
                    (unsigned long long)c->bytes, (unsigned long long)c->writes, (unsigned long long)c->flushes,
                    (unsigned long long)c->proc_wchar, (unsigned long long)c->proc_syscw,
                    (unsigned long long)k->bytes, (unsigned long long)k->writes, (unsigned long long)k->flushes);
        }
        fprintf(f, "]");
    }
    if (run->res[w][e][0].note[0]) {
        fprintf(f, ", \"notes\": [");
        for (unsigned r = 0; r < run->reps; r++) {
            fprintf(f, "%s", r ? ", " : "");
            json_str(f, run->res[w][e][r].note);
        }
        fprintf(f, "]");
    }
    fprintf(f, "}");
}

static void json_workload(FILE *f, const bench_run *run, size_t w)
{
    const workload *wl = &workloads[w];
    fprintf(f, "    {\"name\": ");
    json_str(f, wl->name);
    fprintf(f, ", \"unit\": ");
    json_str(f, wl->unit);
    fprintf(f, ", \"lower_is_better\": %s, \"what\": ", wl->lower_is_better ? "true" : "false");
    json_str(f, wl->what);
    fprintf(f, ",\n     \"results\": {");
    for (size_t e = 0; e < run->n_engines; e++) {
        fprintf(f, "%s\n       ", e ? "," : "");
        json_str(f, run->engines[e]->name);
        fprintf(f, ": ");
        json_engine_result(f, run, w, e);
    }
    fprintf(f, "},\n     \"ratios\": {");
    int cs = engine_index(run, "cstorage");
    bool first = true;
    for (size_t e = 0; cs >= 0 && e < run->n_engines; e++) {
        if ((int)e == cs)
            continue;
        double m = stats(run, w, e).med, c = stats(run, w, (size_t)cs).med;
        fprintf(f, "%s\"cstorage/%s\": %.4f", first ? "" : ", ", run->engines[e]->name, m > 0 ? c / m : 0);
        first = false;
    }
    fprintf(f, "}}");
}

int report_json(const bench_run *run, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        return -1;
    }
    fprintf(f, "{\n  \"tier\": \"engine\",\n  \"date\": \"%s\",\n  \"quick\": %s,\n", run->date,
            run->quick ? "true" : "false");
    fprintf(f, "  \"source_rev\": ");
    json_str(f, run->source_rev ? run->source_rev : "unknown");
    fprintf(f, ",\n  \"machine\": {\"cpu\": ");
    json_str(f, cpu_model());
    fprintf(f, ", \"kernel\": ");
    json_str(f, kernel_release());
    fprintf(f, ", \"fs\": ");
    json_str(f, fs_type(run->dir));
    fprintf(f, ", \"compiler\": ");
    json_str(f, compiler_version());
    fprintf(f, ", \"loadavg_start\": ");
    json_str(f, run->load_start);
    fprintf(f, ", \"loadavg_end\": ");
    json_str(f, run->load_end);
    fprintf(f, "},\n  \"config\": {\"n\": %llu, \"key_size\": %u, \"value_size\": %u, \"reps\": %u, "
               "\"sync_ops\": %u, \"batch\": %u, \"rww_batch\": %u, \"seed\": %llu, "
               "\"order\": \"per workload, engines interleaved, rotated each repetition\"},\n",
            (unsigned long long)run->cfg.n, run->cfg.key_size, run->cfg.value_size, run->reps,
            run->cfg.sync_ops, run->cfg.batch, run->cfg.rww_batch, (unsigned long long)run->cfg.seed);
    fprintf(f, "  \"engines\": [");
    for (size_t e = 0; e < run->n_engines; e++) {
        fprintf(f, "%s\n    {\"name\": ", e ? "," : "");
        json_str(f, run->engines[e]->name);
        fprintf(f, ", \"settings\": ");
        json_str(f, run->engines[e]->describe());
        fprintf(f, "}");
    }
    fprintf(f, "],\n  \"workloads\": [\n");
    bool first = true;
    for (size_t w = 0; w < n_workloads; w++) {
        if (!run->selected[w])
            continue;
        fprintf(f, "%s", first ? "" : ",\n");
        json_workload(f, run, w);
        first = false;
    }
    fprintf(f, "\n  ]\n}\n");
    if (fclose(f) != 0) {
        perror(path);
        return -1;
    }
    return 0;
}

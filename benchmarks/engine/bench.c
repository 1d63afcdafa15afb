/*
 * bench.c — engine-tier benchmark: CStorage against LMDB and SQLite.
 *
 *   engine_bench [--quick] [-n N] [--reps R] [--engines cstorage,lmdb,sqlite]
 *                [--workloads a,b,...] [--key-size K] [--value-size V]
 *                [--sync-ops S] [--dir DIR] [--json FILE] [--source-rev TEXT]
 *
 * Every repetition makes a fresh scratch directory per engine under DIR
 * (default: benchmarks/tmp beside the binary's working directory; it must be
 * a real disk, not tmpfs) and runs the workloads in their fixed order; each
 * workload runs on every engine before the next starts (A B C, then the next
 * repetition starts one engine later: B C A, ...). Exit status: 0, or 1 if
 * any engine reported an error or a correctness check failed.
 */
#include "report.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const bench_driver *const all_drivers[] = {
#ifdef HAVE_CSTORAGE
    &driver_cstorage,
#endif
    &driver_lmdb,
    &driver_sqlite,
};
#define N_DRIVERS (sizeof all_drivers / sizeof all_drivers[0])

static char scratch[4096]; /* mkdtemp'd root, removed at exit */

static void cleanup(void)
{
    if (scratch[0])
        rm_tree(scratch);
    scratch[0] = 0;
}

static void on_signal(int sig)
{
    cleanup();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void usage(void)
{
    fprintf(stderr, "usage: engine_bench [--quick] [-n N] [--reps R] [--engines a,b] "
                    "[--workloads a,b] [--key-size K] [--value-size V] [--sync-ops S] "
                    "[--dir DIR] [--json FILE] [--source-rev TEXT]\nengines:");
    for (size_t i = 0; i < N_DRIVERS; i++)
        fprintf(stderr, " %s", all_drivers[i]->name);
    fprintf(stderr, "\nworkloads:");
    for (size_t i = 0; i < n_workloads; i++)
        fprintf(stderr, " %s", workloads[i].name);
    fprintf(stderr, "\n");
    exit(2);
}

static bool in_list(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; p && *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && !strncmp(p, name, n))
            return true;
        p = end ? end + 1 : NULL;
    }
    return false;
}

static uint64_t num_arg(const char *s)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v == 0)
        usage();
    return v;
}

typedef struct options {
    const char *engines, *workloads, *dir, *json;
} options;

static void parse_args(int argc, char **argv, bench_run *run, options *o)
{
    bench_cfg *c = &run->cfg;
    *c = (bench_cfg){.n = 1000000, .key_size = 16, .value_size = 100, .sync_ops = 1000,
                     .batch = 1000, .rww_batch = 10, .seed = 20260101};
    run->reps = 3;
    bool n_set = false, reps_set = false, sync_set = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--quick")) {
            run->quick = true;
            continue;
        }
        if (!v)
            usage();
        i++;
        if (!strcmp(a, "-n") || !strcmp(a, "--n"))
            c->n = num_arg(v), n_set = true;
        else if (!strcmp(a, "--reps"))
            run->reps = (unsigned)num_arg(v), reps_set = true;
        else if (!strcmp(a, "--key-size"))
            c->key_size = (uint32_t)num_arg(v);
        else if (!strcmp(a, "--value-size"))
            c->value_size = (uint32_t)num_arg(v);
        else if (!strcmp(a, "--sync-ops"))
            c->sync_ops = (uint32_t)num_arg(v), sync_set = true;
        else if (!strcmp(a, "--engines"))
            o->engines = v;
        else if (!strcmp(a, "--workloads"))
            o->workloads = v;
        else if (!strcmp(a, "--dir"))
            o->dir = v;
        else if (!strcmp(a, "--json"))
            o->json = v;
        else if (!strcmp(a, "--source-rev"))
            run->source_rev = v;
        else
            usage();
    }
    if (run->quick) {
        c->n = n_set ? c->n : 20000;
        run->reps = reps_set ? run->reps : 1;
        c->sync_ops = sync_set ? c->sync_ops : 100;
    }
    if (run->reps > MAX_REPS || c->n > UINT32_MAX || c->key_size < 8 || c->key_size > 512 ||
        c->value_size < 1 || (c->key_size < 20 && 2 * c->n + 1 >= 100000000ull))
        usage(); /* keys are 2n+1 in key_size decimal digits */
}

static void select_engines(bench_run *run, const char *list)
{
    for (size_t i = 0; i < N_DRIVERS; i++)
        if (!list || in_list(list, all_drivers[i]->name))
            run->engines[run->n_engines++] = all_drivers[i];
    if (run->n_engines == 0) {
        fprintf(stderr, "engine_bench: no known engine in '%s'\n", list);
        usage();
    }
}

/* Reported workloads; fillrandom also runs (unreported) when a selected
 * workload needs the main database. */
static void select_workloads(bench_run *run, const char *list, bool *runs)
{
    bool need_main = false;
    for (size_t w = 0; w < n_workloads; w++) {
        run->selected[w] = !list || in_list(list, workloads[w].name);
        runs[w] = run->selected[w];
        need_main |= runs[w] && workloads[w].needs_main;
    }
    for (size_t w = 0; w < n_workloads; w++)
        if (!strcmp(workloads[w].name, "fillrandom"))
            runs[w] |= need_main;
}

/* Profiling: with BENCH_PERF_CTL=<fifo> (perf record -D -1
 * --control=fifo:<fifo>), only the reported workloads are recorded. */
static void perf_ctl(const char *cmd)
{
    static FILE *ctl;
    static bool tried;
    if (!tried) {
        tried = true;
        const char *path = getenv("BENCH_PERF_CTL");
        if (path && !(ctl = fopen(path, "w")))
            perror(path);
    }
    if (ctl) {
        fprintf(ctl, "%s\n", cmd);
        fflush(ctl);
    }
}

static void die(const bench_engine *e, const char *wl)
{
    fprintf(stderr, "engine_bench: FAILED: %s on %s: %s\n", wl, e->drv->name, bench_error());
    exit(1);
}

static void run_repetition(bench_run *run, const bool *runs, unsigned rep)
{
    bench_engine eng[MAX_ENGINES];
    for (size_t i = 0; i < run->n_engines; i++) {
        eng[i] = (bench_engine){.drv = run->engines[i]};
        snprintf(eng[i].dir, sizeof eng[i].dir, "%s/%s-%u", scratch, eng[i].drv->name, rep);
        if (mkdir(eng[i].dir, 0755) != 0) {
            perror(eng[i].dir);
            exit(1);
        }
    }
    for (size_t w = 0; w < n_workloads; w++) {
        if (!runs[w])
            continue;
        for (size_t j = 0; j < run->n_engines; j++) {
            size_t i = (j + rep) % run->n_engines;
            bench_result *r = &run->res[w][i][rep];
            *r = (bench_result){0};
            if (run->selected[w])
                perf_ctl("enable");
            int rc = workloads[w].run(&run->cfg, &eng[i], r);
            if (run->selected[w])
                perf_ctl("disable");
            if (rc != BENCH_OK)
                die(&eng[i], workloads[w].name);
            fprintf(stderr, "  rep %u/%u  %-20s %-9s %14.0f %s  (%.3f s, cpu %.3f s)%s%s\n", rep + 1,
                    run->reps, workloads[w].name, eng[i].drv->name, r->value, workloads[w].unit, r->secs,
                    r->cpu_secs, r->note[0] ? "  " : "", r->note);
        }
    }
    for (size_t i = 0; i < run->n_engines; i++) {
        if (eng[i].sess)
            eng[i].drv->session_close(eng[i].sess);
        if (eng[i].db && eng[i].drv->close(eng[i].db) != BENCH_OK)
            die(&eng[i], "close");
        rm_tree(eng[i].dir);
    }
}

int main(int argc, char **argv)
{
    static bench_run run;
    options o = {0};
    parse_args(argc, argv, &run, &o);
    select_engines(&run, o.engines);
    bool runs[64];
    select_workloads(&run, o.workloads, runs);

    const char *base = o.dir ? o.dir : "tmp";
    mkdir(base, 0755);
    snprintf(scratch, sizeof scratch, "%s/engine-XXXXXX", base);
    if (!mkdtemp(scratch)) {
        perror(scratch);
        return 1;
    }
    atexit(cleanup);
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    run.dir = scratch;
    const char *fs = fs_type(scratch);
    if (!strncmp(fs, "tmpfs", 5) || !strncmp(fs, "ramfs", 5))
        fprintf(stderr, "engine_bench: warning: %s is on %s, not a real disk\n", scratch, fs);

    time_t t = time(NULL);
    strftime(run.date, sizeof run.date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
    fprintf(stderr, "engine_bench: N=%llu reps=%u engines=%zu dir=%s (%s)\n",
            (unsigned long long)run.cfg.n, run.reps, run.n_engines, scratch, fs);
    data_init(&run.cfg);
    load_average(run.load_start, sizeof run.load_start);
    double t0 = now_sec();
    for (unsigned rep = 0; rep < run.reps; rep++)
        run_repetition(&run, runs, rep);
    load_average(run.load_end, sizeof run.load_end);
    fprintf(stderr, "engine_bench: done in %.1f s (load average before: %s, after: %s)\n",
            now_sec() - t0, run.load_start, run.load_end);
    report_table(&run);
    int rc = o.json ? report_json(&run, o.json) : 0;
    data_free();
    return rc ? 1 : 0;
}

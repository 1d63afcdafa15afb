/* util.c — errors, timing, files, machine description. */
#include "bench.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

static _Thread_local char err_buf[512];

int bench_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err_buf, sizeof err_buf, fmt, ap);
    va_end(ap);
    return BENCH_ERR;
}

const char *bench_error(void) { return err_buf[0] ? err_buf : "unknown error"; }

double now_sec(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

bench_clock clock_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (bench_clock){now_sec(), (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9};
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "engine_bench: out of memory (%zu bytes)\n", n);
        exit(2);
    }
    return p;
}

void rm_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *de;
        char path[4352];
        while ((de = readdir(d))) {
            if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
                continue;
            snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
            struct stat st;
            if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
                rm_tree(path);
            else
                unlink(path);
        }
        closedir(d);
    }
    rmdir(dir);
}

static bool is_lock_file(const char *name)
{
    size_t n = strlen(name);
    return strstr(name, "lock") != NULL || (n > 4 && !strcmp(name + n - 4, "-shm"));
}

void dir_bytes(const char *dir, uint64_t *size, uint64_t *alloc)
{
    *size = *alloc = 0;
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *de;
    char path[4352];
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.' || is_lock_file(de->d_name))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        struct stat st;
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
            *size += (uint64_t)st.st_size;
            *alloc += (uint64_t)st.st_blocks * 512u;
        }
    }
    closedir(d);
}

/* First line of a command's output, trimmed (static buffer). */
static const char *first_line(const char *cmd, char *buf, size_t len)
{
    snprintf(buf, len, "unknown");
    FILE *p = popen(cmd, "r");
    if (!p)
        return buf;
    if (!fgets(buf, (int)len, p))
        snprintf(buf, len, "unknown");
    pclose(p);
    buf[strcspn(buf, "\n")] = 0;
    return buf;
}

const char *cpu_model(void)
{
    static char buf[256];
    first_line("grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'", buf, sizeof buf);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    size_t l = strlen(buf);
    snprintf(buf + l, sizeof buf - l, " (%ld CPUs online)", n);
    return buf;
}

const char *kernel_release(void)
{
    static struct utsname u;
    return uname(&u) == 0 ? u.release : "unknown";
}

const char *fs_type(const char *dir)
{
    static char buf[256], cmd[4400];
    /* df -T: "Filesystem Type ..."; print type and device. */
    snprintf(cmd, sizeof cmd, "df -PT '%s' 2>/dev/null | awk 'NR==2 {print $2 \" (\" $1 \")\"}'", dir);
    return first_line(cmd, buf, sizeof buf);
}

const char *compiler_version(void)
{
#define STR_(x) #x
#define STR(x) STR_(x)
#if defined(__clang__)
    return "clang " STR(__clang_major__) "." STR(__clang_minor__) "." STR(__clang_patchlevel__);
#elif defined(__GNUC__)
    return "gcc " __VERSION__;
#else
    return "unknown";
#endif
}

const char *load_average(char *buf, size_t len)
{
    snprintf(buf, len, "unknown");
    FILE *f = fopen("/proc/loadavg", "r");
    if (!f)
        return buf;
    double a, b, c;
    if (fscanf(f, "%lf %lf %lf", &a, &b, &c) == 3)
        snprintf(buf, len, "%.2f %.2f %.2f", a, b, c);
    fclose(f);
    return buf;
}

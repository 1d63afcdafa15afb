/*
 * fuzz_common.h — helpers shared by the libFuzzer harnesses: a byte reader
 * over the fuzz input and a scratch directory (tmpfs when available).
 */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct { const uint8_t *p; size_t n; } fz_in;

static inline int fz_more(const fz_in *in) { return in->n > 0; }
static inline uint8_t fz_u8(fz_in *in)
{
    if (!in->n) return 0;
    in->n--;
    return *in->p++;
}
static inline uint16_t fz_u16(fz_in *in) { uint16_t a = fz_u8(in); return (uint16_t)(a | fz_u8(in) << 8); }
static inline uint32_t fz_u32(fz_in *in) { uint32_t a = fz_u16(in); return a | (uint32_t)fz_u16(in) << 16; }
static inline uint64_t fz_u64(fz_in *in) { uint64_t a = fz_u32(in); return a | (uint64_t)fz_u32(in) << 32; }

static const char *fz_dir(const char *tag)
{
    static char dir[256];
    if (!dir[0]) {
        struct stat st;
        const char *base = stat("/dev/shm", &st) == 0 && access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
        snprintf(dir, sizeof dir, "%s/fuzz-%s.XXXXXX", base, tag);
        if (!mkdtemp(dir)) {
            perror("mkdtemp");
            exit(2);
        }
    }
    return dir;
}

static void fz_rm(const char *path, const char *lock_suffix)
{
    char l[512];
    unlink(path);
    snprintf(l, sizeof l, "%s%s", path, lock_suffix);
    unlink(l);
    snprintf(l, sizeof l, "%s-log", path); /* CStorage's redo log */
    unlink(l);
}

#endif

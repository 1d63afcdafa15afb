/* error.c — error names, the per-thread detail of the last failure, and
 * log messages. */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>

static _Thread_local char last_detail[512];

const char *cs_strerror(int err)
{
    switch (err) {
    case CS_OK: return "success";
    case CS_NOTFOUND: return "not found";
    case CS_EXISTS: return "key already exists";
    case CS_EINVAL: return "invalid argument";
    case CS_ECORRUPT: return "database file is corrupt";
    case CS_EFORMAT: return "a CStorage database of another format version";
    case CS_EIO: return "I/O error";
    case CS_ENOSPACE: return "no space left on device; nothing was committed";
    case CS_ENOMEM: return "out of memory";
    case CS_EBUSY: return "write transaction already in progress";
    case CS_EKEYSIZE: return "key is empty or longer than the maximum key size";
    case CS_EVALSIZE: return "value is larger than the maximum value size";
    case CS_EREADERS: return "reader table is full (too many open snapshots)";
    case CS_EREADONLY: return "write attempted in a read-only transaction or database";
    case CS_EBADTXN: return "transaction has failed or is not usable for this operation";
    case CS_ELOCK: return "lock file could not be created, opened or validated";
    case CS_EPANIC: return "a flush to disk failed; close and reopen the database";
    case CS_ETOODEEP: return "tree is deeper than the engine allows (corrupt file)";
    case CS_ENOTDB: return "not a CStorage database";
    default: return "unknown error";
    }
}

const char *cs_last_error_detail(void) { return last_detail; }

int cs_fail(int err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_detail, sizeof last_detail, fmt, ap);
    va_end(ap);
    return err;
}

void cs_log(cs_logger *lg, cs_log_level lv, cs_log_topic topic, const char *fmt, ...)
{
    if (!log_on(lg, lv)) return;
    char msg[512], kept[sizeof last_detail];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* The function may call the engine, which would overwrite the detail
     * of a failure its caller is about to read. */
    memcpy(kept, last_detail, sizeof kept);
    lg->fn(lg->ctx, lv, topic, msg);
    memcpy(last_detail, kept, sizeof kept);
}

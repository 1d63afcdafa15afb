/*
 * invariants.h — the names of the engine's invariants (format.h, I1-I12)
 * and commit steps (commit sequence, C1-C7; docs/DURABILITY.md), so that a
 * failure report of the fuzzers and simulators says which one it breaks.
 * Header-only: the libFuzzer harnesses and the rel.c tools share it.
 */
#ifndef FUZZ_INVARIANTS_H
#define FUZZ_INVARIANTS_H

#include <stdio.h>
#include <string.h>

/* One label per invariant, as cs_check prefixes its messages with them. */
#define INV_I1 "I1 meta"
#define INV_I2 "I2 page checksum"
#define INV_I3 "I3 key order"
#define INV_I4 "I4 separator range"
#define INV_I5 "I5 entry count"
#define INV_I6 "I6 page accounting"
#define INV_I7 "I7 snapshot immutability"
#define INV_I8 "I8 node structure"
#define INV_I9 "I9 tree shape"
#define INV_I10 "I10 overflow run"
#define INV_I11 "I11 free list"
#define INV_I12 "I12 catalog"

/* What the simulators check beyond one snapshot's structure. */
/* open must find a valid meta: a torn or lost meta write leaves the other */
#define INV_OPEN INV_I1 " (open finds a whole meta: a lost or torn meta write leaves the other)"
/* the state a meta reaches is exactly the one its commit wrote */
#define INV_STATE INV_I7 " (a meta reaches exactly the pages its commit wrote: C3-C4 before C5, no reuse of live pages)"
/* a commit whose meta flush (C6) returned survives a power loss */
#define INV_POWER "C6 durability (a commit whose meta flush returned survives power loss)"
/* a process crash loses nothing acknowledged: written metas are adopted */
#define INV_CRASH "C5-C7 durability (a killed process loses no acknowledged commit: its written meta is adopted, I1)"
/* a failed commit (write, grow or flush error) changes nothing durable */
#define INV_FAILED_COMMIT "C3-C6 failure (a commit that returned an error left the previous commit, I7)"
/* the lock file's recovery of dead processes */
#define INV_SLOTS "lock file (reader slots of dead processes are reclaimed, or I7's reuse stalls)"
#define INV_WRITER "lock file (the writer mutex of a dead writer is recovered)"
/* results agree with LMDB's for the same operations */
#define INV_SEMANTICS "key-value semantics (results as LMDB's)"

/* The invariant a cs_check message belongs to (for messages that do not
 * carry their id yet; the table follows check.c's texts). */
static inline const char *inv_of_check_text(const char *msg)
{
    static const struct { const char *text, *inv; } map[] = {
        {"free list", INV_I11},              /* before "checksum mismatch": the run's own */
        {"outside the file", INV_I6},
        {"is used twice", INV_I6},
        {"not reachable", INV_I6},
        {"checksum mismatch", INV_I2},
        {"overflow run", INV_I10},
        {"out of bounds", INV_I8},
        {"not a valid tree page", INV_I8},
        {"catalog walk failed", INV_I8},
        {"page at level", INV_I9},
        {": depth", INV_I9},
        {"keys out of order", INV_I3},
        {"bytes", INV_I3},                   /* "key %u has %u bytes" */
        {"separator", INV_I4},
        {"counts", INV_I5},
        {"descriptor says", INV_I5},
        {"bad descriptor", INV_I12},
    };
    if (strstr(msg, "catalog entry")) return INV_I12; /* "catalog entry %s: %zu bytes" */
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strstr(msg, map[i].text)) return map[i].inv;
    return "invariant unknown";
}

/* "cs_check: I6 page accounting: <text>": the message as cs_check gave it
 * when it names its invariant ("I<n> ..."), else with the name put in. */
static inline void inv_describe_check(char *out, size_t n, const char *msg)
{
    if (msg[0] == 'I' && msg[1] >= '0' && msg[1] <= '9') snprintf(out, n, "cs_check: %s", msg);
    else snprintf(out, n, "cs_check: %s: %s", inv_of_check_text(msg), msg);
}

#endif

/* test_vpage.c — the shared segment of volatile pages on its own (vpage.c):
 * a page put by one handle is read by another mapping of the segment; the
 * first opener empties it; pages outside the arena are refused; the
 * double-buffered state keeps the published commit's state when a later
 * one was written but never published; a full segment says so; a segment
 * of another page size is refused. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "test.h"

#define PS 4096u

static void test_pages_and_state(void)
{
    char name[VSEG_NAME_MAX];
    vseg_name(0x1234, (ino_t)getpid(), name);
    cs_vseg w, r;
    REQUIRE_OK(vseg_open(&w, name, PS, 256, true));
    REQUIRE_OK(vseg_open(&r, name, PS, 256, false));
    uint64_t first = w.hdr->first_page;
    CHECK(first >= 1);
    CHECK(first * PS >= sizeof(cs_vseg_hdr));

    static uint8_t pg[3 * PS];
    test_fill(pg, sizeof pg, 42);
    uint64_t at = VPAGE_BASE + first + 5;
    CHECK(pgno_is_volatile(at));
    CHECK(!pgno_is_volatile(VPAGE_BASE - 1));
    CHECK(vseg_page(&r, at, 3) == NULL); /* not there yet */
    REQUIRE_OK(vseg_put(&w, at, pg, 3));
    const uint8_t *got = vseg_page(&r, at, 3);
    REQUIRE(got != NULL);
    CHECK(!memcmp(got, pg, sizeof pg));

    /* The header's pages, numbers below the arena and past the cap are
     * not pages. */
    CHECK(vseg_page(&r, VPAGE_BASE, 1) == NULL);
    CHECK(vseg_page(&r, VPAGE_BASE + first - 1, 1) == NULL);
    CHECK(vseg_page(&r, 12345, 1) == NULL);
    CHECK(vseg_page(&r, VPAGE_BASE + 255, 2) == NULL);
    CHECK_RC(vseg_put(&w, VPAGE_BASE, pg, 1), CS_EINVAL);
    CHECK_RC(vseg_put(&w, VPAGE_BASE + 255, pg, 2), CS_ENOSPACE);

    /* State of commit 10 published; commit 11's written, never published:
     * 10's is still there. A state of neither is absent. */
    vseg_state s10 = {.txnid = 10, .hwm = first + 8, .npending = 1, .log_off = 512, .epoch = 9};
    vseg_state s11 = {.txnid = 11, .hwm = first + 9, .npending = 2, .log_off = 1024, .epoch = 9};
    vseg_set_state(&w, &s10);
    vseg_set_state(&w, &s11);
    const vseg_state *st = vseg_state_of(&r, 10);
    REQUIRE(st != NULL);
    CHECK_EQ(st->log_off, 512);
    CHECK_EQ(vseg_state_of(&r, 11)->hwm, first + 9);
    CHECK(vseg_state_of(&r, 12) == NULL);
    CHECK(vseg_state_of(&r, 8) == NULL);

    /* A page size that does not match is another database's segment. */
    cs_vseg other;
    CHECK_RC(vseg_open(&other, name, 2 * PS, 256, false), CS_ELOCK);

    /* The first opener of a new generation starts empty. */
    vseg_close(&r);
    vseg_close(&w);
    REQUIRE_OK(vseg_open(&w, name, PS, 256, true));
    CHECK(vseg_page(&w, at, 1) == NULL);
    CHECK(vseg_state_of(&w, 10) == NULL);
    vseg_close(&w);
    vseg_unlink(name);
    /* Gone: a non-first open finds no header. */
    CHECK_RC(vseg_open(&w, name, PS, 256, false), CS_ELOCK);
    vseg_unlink(name);
}

int main(void)
{
    test_pages_and_state();
    printf("vpage: put and read across mappings, bounds, state, page size\n");
    return test_report();
}

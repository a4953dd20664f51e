/* The mover's descriptor walker (memory.md §11.2) against an independent
 * nested-loop computation written here. */
#include <stdlib.h>

#include "sysnode/mover/walker.h"
#include "support/test.h"

typedef struct ref_el {
    uint64_t addr;
    int valid;
} ref_el;

/* Six explicit loops, dimension 0 outermost; non-live dimensions run once
 * with index 0. Arithmetic in int64 then reduced, unlike the walker. */
static size_t reference(const kh_walk_desc *d, ref_el *out, size_t max)
{
    unsigned live = d->ndim >= 6 ? 6 : d->ndim;
    uint64_t c[6];
    for (unsigned i = 0; i < 6; i++) c[i] = i < live ? (d->dim[i].count ? d->dim[i].count : 1) : 1;
    size_t n = 0;
    uint64_t ix[6];
    for (ix[0] = 0; ix[0] < c[0]; ix[0]++)
    for (ix[1] = 0; ix[1] < c[1]; ix[1]++)
    for (ix[2] = 0; ix[2] < c[2]; ix[2]++)
    for (ix[3] = 0; ix[3] < c[3]; ix[3]++)
    for (ix[4] = 0; ix[4] < c[4]; ix[4]++)
    for (ix[5] = 0; ix[5] < c[5]; ix[5]++) {
        if (n == max) return n;
        int64_t off = 0, val[2] = {d->bound[0].base, d->bound[1].base};
        for (unsigned i = 0; i < live; i++) {
            off += (int64_t)ix[i] * d->dim[i].stride;
            if (d->dim[i].axis == 1) val[0] += (int64_t)ix[i] * d->dim[i].astep;
            if (d->dim[i].axis == 2) val[1] += (int64_t)ix[i] * d->dim[i].astep;
        }
        /* wrap to a signed 32-bit offset and signed 16-bit axis values */
        int64_t o32 = ((off % 4294967296LL) + 4294967296LL) % 4294967296LL;
        if (o32 >= 2147483648LL) o32 -= 4294967296LL;
        out[n].addr = (uint64_t)((int64_t)d->base + o32) & ((1ull << 40) - 1);
        out[n].valid = 1;
        for (int a = 0; a < 2; a++) {
            int64_t v = ((val[a] % 65536) + 65536) % 65536;
            if (v >= 32768) v -= 65536;
            if (d->bound[a].ext && (v < 0 || v >= d->bound[a].ext)) out[n].valid = 0;
        }
        n++;
    }
    return n;
}

static uint32_t rnd(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*s >> 33);
}

static void random_descriptors_match_nested_loops(void)
{
    enum { MAX = 4096 };
    static ref_el ref[MAX];
    uint64_t seed = 12345;
    for (int t = 0; t < 400; t++) {
        kh_walk_desc d;
        kh_walk_desc_reset(&d);
        d.base = ((uint64_t)rnd(&seed) << 8 | rnd(&seed)) & ((1ull << 40) - 1);
        if (t % 7 == 0) d.base = (1ull << 40) - 64; /* wrap at 2^40 */
        d.ndim = rnd(&seed) % 8;
        for (int i = 0; i < 6; i++) {
            d.dim[i].count = (uint16_t)(rnd(&seed) % 4);
            int32_t s = (int32_t)(rnd(&seed) % 512) - 256;
            d.dim[i].stride = t % 5 == 0 ? (int32_t)rnd(&seed) : s * 32; /* also wrapping strides */
            d.dim[i].axis = (uint8_t)(rnd(&seed) % 4);
            d.dim[i].astep = (int16_t)((int)(rnd(&seed) % 7) - 3);
            if (t % 11 == 0) d.dim[i].astep = (int16_t)rnd(&seed);
        }
        for (int a = 0; a < 2; a++) {
            d.bound[a].base = (int16_t)((int)(rnd(&seed) % 9) - 4);
            d.bound[a].ext = (uint16_t)(rnd(&seed) % 3 ? rnd(&seed) % 6 : 0);
        }
        size_t n = reference(&d, ref, MAX);
        kh_walk w;
        kh_walk_elem e;
        kh_walk_start(&w, &d);
        size_t k = 0;
        while (kh_walk_get(&w, &e)) {
            if (k >= n) break;
            CHECK_EQ(e.addr, ref[k].addr);
            CHECK_EQ(e.valid, ref[k].valid);
            CHECK_EQ(e.misaligned, (ref[k].addr & 31) != 0);
            CHECK_EQ(e.last, k + 1 == n);
            kh_walk_step(&w);
            k++;
        }
        CHECK_EQ(k, n);
        CHECK(!kh_walk_get(&w, &e));
    }
}

/* ndim = 0: exactly one element, at the base (§11.2). */
static void ndim_zero_is_one_element(void)
{
    kh_walk_desc d;
    kh_walk_desc_reset(&d);
    d.ndim = 0;
    d.base = 0x1000;
    d.dim[0].count = 5;
    d.dim[0].stride = 32;
    kh_walk w;
    kh_walk_elem e;
    kh_walk_start(&w, &d);
    CHECK(kh_walk_get(&w, &e));
    CHECK_EQ(e.addr, 0x1000);
    CHECK(e.last);
    kh_walk_step(&w);
    CHECK(!kh_walk_get(&w, &e));
}

/* The highest live dimension is innermost: dims (2 x 3), strides 0x100 and
 * 0x20 give 0, 20, 40, 100, 120, 140 (§11.2). */
static void highest_live_dimension_is_innermost(void)
{
    kh_walk_desc d;
    kh_walk_desc_reset(&d);
    d.ndim = 2;
    d.dim[0] = (kh_walk_dim){2, 0x100, 0, 0};
    d.dim[1] = (kh_walk_dim){3, 0x20, 0, 0};
    static const uint64_t want[] = {0, 0x20, 0x40, 0x100, 0x120, 0x140};
    kh_walk w;
    kh_walk_elem e;
    kh_walk_start(&w, &d);
    for (int i = 0; i < 6; i++) {
        CHECK(kh_walk_get(&w, &e));
        CHECK_EQ(e.addr, want[i]);
        kh_walk_step(&w);
    }
    CHECK(!kh_walk_get(&w, &e));
}

/* Padding: axis 0 base -1 step 1 extent 3 over 5 elements: valid only for
 * axis values 0..2, i.e. elements 1..3 (§11.2). */
static void bound_axis_marks_padding(void)
{
    kh_walk_desc d;
    kh_walk_desc_reset(&d);
    d.ndim = 1;
    d.dim[0] = (kh_walk_dim){5, 32, 1, 1};
    d.bound[0] = (kh_walk_bound){-1, 3};
    static const int want[] = {0, 1, 1, 1, 0};
    kh_walk w;
    kh_walk_elem e;
    kh_walk_start(&w, &d);
    for (int i = 0; i < 5; i++) {
        CHECK(kh_walk_get(&w, &e));
        CHECK_EQ(e.valid, want[i]);
        kh_walk_step(&w);
    }
}

/* A count of 0 acts as 1; ndim >= 6 means all six (§11.1, §11.2). */
static void count_zero_and_ndim_seven(void)
{
    kh_walk_desc d;
    kh_walk_desc_reset(&d);
    d.ndim = 7;
    d.dim[5] = (kh_walk_dim){2, 32, 0, 0};
    kh_walk w;
    kh_walk_elem e;
    kh_walk_start(&w, &d);
    int n = 0;
    while (kh_walk_get(&w, &e)) {
        n++;
        kh_walk_step(&w);
    }
    CHECK_EQ(n, 2);
}

int main(void)
{
    KH_RUN(random_descriptors_match_nested_loops);
    KH_RUN(ndim_zero_is_one_element);
    KH_RUN(highest_live_dimension_is_innermost);
    KH_RUN(bound_axis_marks_padding);
    KH_RUN(count_zero_and_ndim_seven);
    return kh_test_end("t_node_walker");
}

/* A host driver's spin on a status register (kh_card_poll64): run the
 * machine a step, read, test, again. One process runs exactly that loop.
 * On several processes (docs/mpi.md "The host card") every run ends with
 * an agreement, so the loop's two runs per read, the step and the read's
 * own link time, are run as one: nothing happens between them but the
 * test, which every process makes alike on the shared value. Splitting a
 * run changes no result (kh_sim_run settles at each end, and settling
 * is not seen), so the merged loop is the same machine, one agreement per
 * read cheaper when the windows are long. */
#include "card/card_int.h"

int kh_card_poll64(kh_card *c, uint64_t addr, kh_cycle step, uint64_t mask, uint64_t want, kh_cycle limit,
                   uint64_t *value, char *err, size_t errlen)
{
    kh_sim *sim = kh_card_sim(c);
    kh_cycle start = kh_sim_now(sim);
    if (!kh_card_distributed(c) || step == 0) {
        for (;;) {
            kh_sim_run(sim, step);
            if (kh_card_read64(c, addr, value, err, errlen)) return -1;
            if ((*value & mask) == want) return 0;
            if (kh_sim_now(sim) - start > limit) return 1;
        }
    }
    kh_cycle link = kh_card_read64_cycles(c);
    kh_sim_run(sim, step);
    for (;;) {
        if (kh_card_read64_sample(c, addr, value, err, errlen)) return -1;
        int done = (*value & mask) == want || kh_sim_now(sim) + link - start > limit;
        if (done) {
            if (link) kh_sim_run(sim, link);
            return (*value & mask) == want ? 0 : 1;
        }
        kh_sim_run(sim, link + step); /* the read's link time and the next step */
    }
}

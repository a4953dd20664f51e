/* The host window's parts that its polling loop (poll.c) shares with the
 * word accesses (card.c): a read is its sample, then its link time. */
#ifndef KOHAKU_CARD_INT_H
#define KOHAKU_CARD_INT_H

#include "kohaku/card.h"

/* kh_card_read64 without its link time: the value as sampled now. */
int kh_card_read64_sample(kh_card *c, uint64_t addr, uint64_t *value, char *err, size_t errlen);
/* The clock advance kh_card_read64 adds after its sample. */
kh_cycle kh_card_read64_cycles(const kh_card *c);
/* Several processes share the card (kh_card_set_dist). */
int kh_card_distributed(const kh_card *c);

#endif

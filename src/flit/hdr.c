/* Building a flit header in one statement (include/kohaku/flit.h). */
#include "kohaku/flit.h"
#include "kohaku/gen/flit.h"

void kh_flit_set_hdr(kh_flit *f, const kh_flit_hdr *h)
{
    kh_hdr_set_dst_x(f->w, h->dst_x);
    kh_hdr_set_dst_y(f->w, h->dst_y);
    kh_hdr_set_src_x(f->w, h->src_x);
    kh_hdr_set_src_y(f->w, h->src_y);
    kh_hdr_set_type(f->w, h->type);
    kh_hdr_set_txn(f->w, h->txn);
    kh_hdr_set_last(f->w, h->last);
    kh_hdr_set_rsvd(f->w, h->rsvd);
}

/* libFuzzer target: `kohaku flit decode` on arbitrary input. The input is
 * either hex text (as the CLI takes it) or 36 raw bytes of a flit. Every
 * path must return without a sanitizer report, and decode -> encode must
 * give the flit back. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kohaku/flit.h"
#include "kohaku/flitcheck.h"
#include "kohaku/hex.h"
#include "kohaku/isa.h"

static kh_isa *isa;
static kh_flitstream *stream;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    char err[256];
    (void)argc;
    (void)argv;
    isa = kh_isa_open_builtin(err, sizeof err);
    if (!isa) abort();
    stream = kh_flitstream_new(NULL);
    return 0;
}

static void ignore_issue(void *ctx, const kh_flitcheck_issue *is) { (void)ctx, (void)is; }
static void ignore_diag(void *ctx, kh_isa_sev s, const char *m) { (void)ctx, (void)s, (void)m; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    kh_flit f;
    char text[512], err[128];
    kh_flit_clear(&f);
    if (size < sizeof text && memchr(data, 0, size) == NULL && size != 36) {
        memcpy(text, data, size);
        text[size] = '\0';
        if (kh_hex_parse(text, f.w, KH_FLIT_BITS, 1, err, sizeof err)) return 0;
    } else if (size >= 36) {
        for (int i = 0; i < 36; i++) f.w[i / 8] |= (uint64_t)data[i] << (8 * (i % 8));
    } else {
        return 0;
    }
    const kh_isa_layout *hdr = kh_isa_find(isa, "hdr");
    unsigned type = (unsigned)kh_isa_get64(hdr, f.w, (unsigned)kh_isa_field_find(hdr, "type"));
    const kh_isa_layout *pl = kh_isa_find_type(isa, type);
    const kh_isa_layout *ls[2] = {hdr, pl};
    kh_flit back;
    kh_flit_clear(&back);
    for (int k = 0; k < 2 && ls[k]; k++) {
        const kh_isa_layout *l = ls[k];
        for (unsigned i = 0; i < kh_isa_field_count(l); i++) {
            kh_isa_val v, w;
            char val[128];
            kh_isa_get(l, f.w, i, &v);
            kh_isa_format_value(l, i, &v, val, sizeof val);
            if (kh_isa_parse_value(l, i, val, &w, err, sizeof err) || memcmp(&v, &w, sizeof v)) abort();
            if (!kh_isa_field_is_view(l, i) && (k == 1 || kh_isa_field_msb(l, i) >= 256))
                kh_isa_set(l, back.w, i, &w);
        }
        kh_isa_validate(l, f.w, ignore_diag, NULL);
    }
    if (pl && memcmp(back.w, f.w, sizeof back.w)) abort(); /* header + payload give the flit back */
    kh_flitcheck_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.origin = (kh_flit_origin)(data[0] % 8);
    ctx.nports = 1;
    ctx.dest = data[size - 1] % 3;
    kh_flitcheck(&f, &ctx, ignore_issue, NULL);
    kh_flitcheck(&f, NULL, ignore_issue, NULL);
    char skipped[512];
    kh_flitcheck_skipped(&f, &ctx, skipped, sizeof skipped);
    kh_flitstream_sent(stream, &f, ignore_issue, NULL);
    kh_flitstream_delivered(stream, &f, ignore_issue, NULL);
    return 0;
}

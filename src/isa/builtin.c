/* The embedded tables. Not stage 1: kh_isa_embedded is generated from the
 * tables by isagen itself (build/gen/isa_embed.c), so this file is linked
 * only into the library (Makefile: STAGE1_SRCS leaves it out). */
#include "isa/isa_int.h"

kh_isa *kh_isa_open_builtin(char *err, size_t errlen)
{
    kh_isa *isa = kh_isa_new();
    for (const kh_isa_source *s = kh_isa_embedded; s->name; s++)
        if (kh_isa_load(isa, s->name, s->path, s->text, err, errlen)) {
            kh_isa_free(isa);
            return NULL;
        }
    return isa;
}

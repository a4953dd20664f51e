/* Host sessions: a text file that drives the card as a host driver does
 * (docs/session.md). A session is parsed whole first, so a malformed line is
 * refused with its line number before anything runs; then it runs command
 * by command against a machine's card.
 */
#ifndef KOHAKU_SESSION_H
#define KOHAKU_SESSION_H

#include <stddef.h>
#include <stdio.h>

#include "kohaku/machine.h"

typedef struct kh_session kh_session;

/* Parse session text. name is used in messages ("NAME:LINE: ..."); files
 * named by `upload`/`compare` lines are read relative to base_dir (NULL:
 * the current directory). NULL with a message naming the line on error. */
kh_session *kh_session_parse(const char *text, const char *name, const char *base_dir, char *err,
                             size_t errlen);
/* Read and parse a session file (files relative to its directory). */
kh_session *kh_session_load(const char *path, char *err, size_t errlen);
void kh_session_free(kh_session *s);
unsigned kh_session_ncommands(const kh_session *s);

/* Run the session on m. `read` and `dump` lines print to out. Returns 0 when
 * every expectation held; 1 when one failed, a poll gave up or the machine
 * stalled (err then holds the line number, the address, the expected and
 * actual values, or the stall diagnosis); -1 for an access the card refused
 * (err names the line and the address). */
int kh_session_run(kh_session *s, kh_machine *m, FILE *out, char *err, size_t errlen);
/* The same, resuming a machine restored from a checkpoint: with from's
 * session line set (a `save` line saved it), the commands after that
 * line, which must be a save line of this session there (else -1 naming
 * it); without (the library saved it, or from NULL), every command. */
int kh_session_run_from(kh_session *s, kh_machine *m, const kh_ckpt_info *from, FILE *out, char *err,
                        size_t errlen);

#endif

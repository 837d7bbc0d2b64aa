/* hm_settings.h -- the rules of the tracker's settings that its launcher
 * (tools/malloc, heapfmt-malloc) checks its options against, so that an
 * option is refused with the tracker's own words: the stack depth bound
 * and the dump signal. Defined in hm_config.c; the launcher links that
 * object, not the tracker's internals (hm.h). */
#ifndef HM_SETTINGS_H
#define HM_SETTINGS_H

#include <stddef.h>

/* The deepest call stack recorded (HEAPFMT_MALLOC_DEPTH, --depth). */
#define HM_MAX_DEPTH 128

/* The default dump signal: SIGRTMIN+7. Real-time signals are used by no
 * Ruby server (Puma and Unicorn take USR1, USR2, TTIN, TTOU, WINCH, HUP;
 * Sidekiq TSTP, TTIN, USR2) nor by profilers (PROF, VTALRM). */
#define HM_DEFAULT_SIGNAL_OFFSET 7

/* A signal by name (USR1, SIGSEGV, RTMIN+3, RTMAX-2...) or number; 0 for
 * "none"; -1 if it names no signal. Every signal is recognised; whether
 * it may be the dump signal is hm_signal_refused's to say. */
int hm_parse_signal(const char *s);
/* NULL when sig may be the dump signal (USR1, USR2, RTMIN..RTMAX), else
 * why not, as a phrase ("carries faults: ..."). */
const char *hm_signal_refused(int sig);
/* "SIGSEGV", "SIGRTMIN+7", "signal 32". */
void hm_signal_name(int sig, char *buf, size_t len);
/* The dump signal s gives (0: none), or -1 with the reason in msg
 * ("SIGSEGV (11) carries faults: ...; choose USR1, USR2 or RTMIN+N"). */
int hm_signal_explain(const char *s, char *msg, size_t len);

#endif /* HM_SETTINGS_H */

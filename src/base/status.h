/* status.h: status codes and error messages returned by library code; only main() picks exit codes. */
#ifndef SLUICE_STATUS_H
#define SLUICE_STATUS_H

enum {
    SL_OK = 0,
    SL_ERR_RUNTIME = 1, /* the run failed: I/O, memory, blow-up */
    SL_ERR_INPUT = 2,   /* bad usage or an invalid scene: nothing was written */
    SL_INTERRUPTED = 3  /* stopped by SIGINT/SIGTERM after writing a final snapshot */
};

/* One line, already formatted as the user should see it (no trailing newline). */
typedef struct sl_err {
    char msg[1024];
} sl_err;

/* Returns the status of x from the calling function when it is not SL_OK. */
#define SL_TRY(x)                \
    do {                         \
        int sl_rc_ = (x);        \
        if (sl_rc_ != SL_OK)     \
            return sl_rc_;       \
    } while (0)

/* Formats msg into e (when e is not NULL) and returns status, so callers can write
 * `return sl_fail(e, SL_ERR_INPUT, "...", ...);`. */
int sl_fail(sl_err *e, int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#endif

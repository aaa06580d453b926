/* status.c: formatting of error messages. */
#include "status.h"

#include <stdarg.h>
#include <stdio.h>

int sl_fail(sl_err *e, int status, const char *fmt, ...)
{
    if (e) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(e->msg, sizeof e->msg, fmt, ap);
        va_end(ap);
    }
    return status;
}

/* file_read.c: reading a whole file into memory. */
#include "file_read.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

int io_read_whole_file(const char *path, size_t max, char **out, size_t *len)
{
    *out = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return errno ? errno : EIO;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    int read_errno = 0;
    while (buf && n <= max) {
        if (cap - n < 2) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        errno = 0;
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0) {
            if (ferror(f))
                read_errno = errno ? errno : EIO;
            break;
        }
    }
    fclose(f);
    if (!buf)
        return ENOMEM;
    if (read_errno || n > max) {
        free(buf);
        return read_errno ? read_errno : EFBIG;
    }
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return 0;
}

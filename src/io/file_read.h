/* file_read.h: reading a whole file into memory (scene files, probes.csv on restart). */
#ifndef SLUICE_FILE_READ_H
#define SLUICE_FILE_READ_H

#include <stddef.h>

/* Reads `path` into *out (malloc'd, NUL-terminated; *len bytes before the NUL). Returns 0, or an
 * errno value: fopen's or fread's, ENOMEM, or EFBIG when the file holds more than max bytes. */
int io_read_whole_file(const char *path, size_t max, char **out, size_t *len);

#endif

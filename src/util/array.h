/* Growing arrays: one doubling rule for every array the library appends to. */
#ifndef KGANTT_ARRAY_H
#define KGANTT_ARRAY_H

#include <stddef.h>
#include <stdint.h>

/* Room for element n of *arr (elements of size bytes, *cap of them allocated): doubles
 * the array when n reaches *cap, starting at first. 0, or -ENOMEM (the array is kept). */
int array_room(void **arr, uint32_t *cap, uint32_t n, size_t size, uint32_t first);

#endif

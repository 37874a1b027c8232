/* A JSON string literal written straight to a stream, for the few JSON files kgantt writes
 * by hand (the chart's manifest): made valid UTF-8, quotes, backslashes and control
 * characters escaped. Documents built with a structure use report/json_writer.h. */
#ifndef KGANTT_JSON_TEXT_H
#define KGANTT_JSON_TEXT_H

#include <stdio.h>

void json_put_string(FILE *f, const char *s);

#endif

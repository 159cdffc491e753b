/* A small regular expression engine for RegexFullMatch: the part of RE2's syntax that models use, matched by
 * backtracking over a parsed tree with a budget of steps, so a hostile pattern ends with a message, never a hang.
 *
 * Syntax: literals (bytes; UTF-8 passes through as bytes), '.', classes [a-z_] and [^...] (ranges, escapes inside),
 * the escapes \d \D \w \W \s \S \b \B \. \\ \t \n \r \f \v and any escaped punctuation, groups (...) and (?:...),
 * alternation |, the greedy quantifiers * + ? {m} {m,} {m,n} and their lazy forms (a trailing ?), the anchors ^ $
 * and \A \z.  Not taken, and refused with a message naming it: back references, look-around, named groups,
 * Unicode classes (\p), flags. */
#ifndef OV_EXEC_REGEX_H
#define OV_EXEC_REGEX_H

#include <stddef.h>

struct ov_regex;

/* Compile pattern (len bytes): the regex, or NULL with a message in err (errn bytes) naming what is wrong. */
struct ov_regex *ov_regex_compile(const char *pattern, size_t len, char *err, size_t errn);
/* Does the whole of s (n bytes) match?  1 yes, 0 no, -1 when the search ran over its budget of steps. */
int ov_regex_full_match(const struct ov_regex *re, const char *s, size_t n);
void ov_regex_free(struct ov_regex *re);

#endif

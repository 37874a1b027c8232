/* Shortening C++ names (util/cxx_name.h): kernels' in the report, native frames' in the
 * host's activities. */
#include "util/cxx_name.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int opens(char c) { return c == '<' || c == '(' || c == '[' || c == '{'; }
static int closes(char c) { return c == '>' || c == ')' || c == ']' || c == '}'; }

/* "void ns::k<int>(float*, int)" → "void ns::k<int>": the last balanced (...) at the end,
 * which is the parameter list (a lambda's or operator()'s own parens stay). */
void cxx_strip_params(char *s)
{
	size_t n = strlen(s);
	while (n > 0 && s[n - 1] == ' ')
		n--;
	if (n == 0 || s[n - 1] != ')')
		return;
	int depth = 0;
	for (size_t i = n; i-- > 0;) {
		if (s[i] == ')')
			depth++;
		else if (s[i] == '(' && --depth == 0) {
			if (i == 0)
				return;
			while (i > 0 && s[i - 1] == ' ')
				i--;
			s[i] = '\0';
			return;
		}
	}
}

/* "void ns::k<unsigned int>" → "ns::k<unsigned int>": drops everything up to the last
 * space outside brackets, which ends the return type. */
void cxx_strip_return_type(char *s)
{
	int depth = 0;
	char *cut = NULL;
	for (char *p = s; *p; p++) {
		if (opens(*p))
			depth++;
		else if (closes(*p) && depth > 0)
			depth--;
		else if (*p == ' ' && depth == 0 && p[1])
			cut = p + 1;
	}
	if (cut)
		memmove(s, cut, strlen(cut) + 1);
}

static int ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

/* Length of the namespace or class qualifier at p ("at::", "(anonymous namespace)::"),
 * 0 when there is none. */
static size_t qualifier_len(const char *p)
{
	static const char anon[] = "(anonymous namespace)::";
	if (!strncmp(p, anon, sizeof(anon) - 1))
		return sizeof(anon) - 1;
	size_t n = 0;
	while (ident_char(p[n]))
		n++;
	return n > 0 && p[n] == ':' && p[n + 1] == ':' ? n + 2 : 0;
}

/* Drops the qualifiers at template depth >= level: with level 1,
 * "at::k<at::native::Functor<float>, std::array<char*, 2ul> >" becomes
 * "at::k<Functor<float>, array<char*, 2ul> >". The type names tell kernels apart; their
 * namespaces rarely do. */
void cxx_strip_qualifiers(char *s, int level)
{
	char *out = s, prev = ' ';
	int depth = 0;
	for (const char *p = s; *p;) {
		size_t q = depth >= level && !ident_char(prev) ? qualifier_len(p) : 0;
		if (q) {
			p += q;
			prev = ':';
			continue;
		}
		if (*p == '<')
			depth++;
		else if (*p == '>' && depth > 0)
			depth--;
		prev = *p;
		*out++ = *p++;
	}
	*out = '\0';
}

/* Template arguments at bracket depth >= level become "…": "k<A<BC>, D>" with level 2
 * is "k<A<…>, D>". A '<' without its '>' (operator<) is left as it is. Writes to out, which
 * needs strlen(s) * 2 + 1 bytes: "<…>" (5 bytes) replaces at least "<xy>" (4). */
void cxx_collapse_templates(const char *s, int level, char *out)
{
	int depth = 0;
	for (const char *p = s; *p;) {
		if (*p == '<' && depth + 1 >= level) {
			int d = 0;
			const char *q = p;
			for (; *q; q++) {
				if (*q == '<')
					d++;
				else if (*q == '>' && --d == 0)
					break;
			}
			if (*q == '>' && q - p > 2) {
				out += sprintf(out, "<…>");
				p = q + 1;
				continue;
			}
		}
		if (*p == '<')
			depth++;
		else if (*p == '>' && depth > 0)
			depth--;
		*out++ = *p++;
	}
	*out = '\0';
}

const char *cxx_short_name(const char *name, size_t width, char *out, size_t outlen)
{
	size_t n = strlen(name);
	if (n <= width) {
		snprintf(out, outlen, "%s", name);
		return out;
	}
	char *tmp = malloc(n * 2 + 8), *tmp2 = malloc(n * 2 + 8);
	if (!tmp || !tmp2) {
		free(tmp);
		free(tmp2);
		snprintf(out, outlen, "%.*s", (int)width, name);
		return out;
	}
	memcpy(tmp, name, n + 1);
	/* a method's qualifiers after its parameters: "f(int) const" */
	static const char *const quals[] = {" const", " volatile", " &&", " &", " noexcept"};
	for (int again = 1; again;) {
		again = 0;
		for (size_t q = 0; q < sizeof(quals) / sizeof(quals[0]); q++) {
			size_t l = strlen(quals[q]), t = strlen(tmp);
			if (t > l && !strcmp(tmp + t - l, quals[q]) && tmp[t - l - 1] == ')') {
				tmp[t - l] = '\0';
				again = 1;
			}
		}
	}
	cxx_strip_params(tmp);
	if (strlen(tmp) > width)
		cxx_strip_return_type(tmp);
	if (strlen(tmp) > width)
		cxx_strip_qualifiers(tmp, 1);
	if (strlen(tmp) > width) {
		cxx_collapse_templates(tmp, 2, tmp2);
		char *t = tmp;
		tmp = tmp2;
		tmp2 = t;
	}
	if (strlen(tmp) > width) {
		cxx_collapse_templates(tmp, 1, tmp2);
		char *t = tmp;
		tmp = tmp2;
		tmp2 = t;
	}
	snprintf(out, outlen, "%s", tmp);
	free(tmp);
	free(tmp2);
	return out;
}

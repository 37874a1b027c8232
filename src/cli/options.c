/* The option tables (options.h): getopt_long's tables and the --help text, both made
 * from one struct cli_option array. */
#include "cli/options.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

#define MAX_OPTIONS 96
#define HELP_WIDTH 80
#define LONG_BASE 0x1000 /* getopt_long's value for opts[i]: LONG_BASE + i */

const char *cli_option_name(const struct cli_option *opt, char buf[64])
{
	if (opt->long_name)
		snprintf(buf, 64, "--%s", opt->long_name);
	else
		snprintf(buf, 64, "-%c", opt->short_name);
	return buf;
}

/* ------------------------------------------------------------------ parsing */

struct getopt_tables {
	struct option longs[MAX_OPTIONS + 2];
	char shorts[3 * MAX_OPTIONS + 8];
};

static void build_tables(const struct cli_option *opts, int stop_at_operand,
			 struct getopt_tables *t)
{
	size_t s = 0, l = 0;
	/* '+': stop at the first operand; ':': a missing value comes back as ':' */
	if (stop_at_operand)
		t->shorts[s++] = '+';
	t->shorts[s++] = ':';
	t->shorts[s++] = 'h';
	for (int i = 0; opts[i].type != CLI_OPT_END && l < MAX_OPTIONS; i++) {
		const struct cli_option *o = &opts[i];
		int has_arg = !o->argh ? no_argument
			      : o->flags & CLI_OPT_OPTARG ? optional_argument : required_argument;
		if (o->type == CLI_OPT_GROUP)
			continue;
		if (o->short_name) {
			t->shorts[s++] = (char)o->short_name;
			for (int k = 0; k < has_arg; k++)
				t->shorts[s++] = ':';
		}
		if (o->long_name)
			t->longs[l++] = (struct option){o->long_name, has_arg, NULL, LONG_BASE + i};
	}
	t->shorts[s] = '\0';
	t->longs[l++] = (struct option){"help", no_argument, NULL, 'h'};
	t->longs[l] = (struct option){NULL, 0, NULL, 0};
}

static const struct cli_option *option_of(const struct cli_option *opts, int c)
{
	if (c >= LONG_BASE)
		return &opts[c - LONG_BASE];
	for (int i = 0; opts[i].type != CLI_OPT_END; i++)
		if (opts[i].type != CLI_OPT_GROUP && opts[i].short_name == c)
			return &opts[i];
	return NULL;
}

/* The one line about a wrong option: getopt_long said '?' or ':'. */
static int wrong_option(int c, int argc, char **argv)
{
	const char *cmd = cli_command();
	const char *arg = optind > 0 && optind <= argc ? argv[optind - 1] : "";
	if (c == ':')
		kg_err("option '%s' needs a value (see kgantt %s --help)", arg, cmd);
	else if (optopt == 'f')
		kg_err("unknown option '-f': -f is --format, in the commands that write a format "
		       "(export, plot); outputs are always replaced, so no force is needed (see "
		       "kgantt %s --help)", cmd);
	else if (optopt && optopt < LONG_BASE && !(arg[0] == '-' && arg[1] == '-'))
		kg_err("unknown option '-%c' (see kgantt %s --help)", optopt, cmd);
	else
		kg_err("unknown option '%s' (see kgantt %s --help)", arg, cmd);
	return KG_EXIT_USAGE;
}

static int take_int(const struct cli_option *o, const char *arg)
{
	char *end, name[64];
	long v = strtol(arg, &end, 10);
	if (!*arg || *end || v < o->lo || v > o->hi) {
		if (o->noun)
			kg_err("%s: '%s' is not %s", cli_option_name(o, name), arg, o->noun);
		else
			kg_err("%s: '%s' is not a whole number from %ld to %ld",
			       cli_option_name(o, name), arg, o->lo, o->hi);
		return KG_EXIT_USAGE;
	}
	*(int *)o->value = (int)v;
	return -1;
}

static int take_choice(const struct cli_option *o, const char *arg)
{
	char name[64], list[256];
	size_t n = 0;
	list[0] = '\0';
	for (int i = 0; o->choices[i]; i++) {
		if (!strcmp(arg, o->choices[i])) {
			*(int *)o->value = i;
			return -1;
		}
		n += (size_t)snprintf(list + n, n < sizeof(list) ? sizeof(list) - n : 0, "%s%s",
				      i ? ", " : "", o->choices[i]);
	}
	kg_err("%s: '%s' is not %s (%s)", cli_option_name(o, name), arg, o->noun, list);
	return KG_EXIT_USAGE;
}

/* One option: -1 to go on, or an exit code. */
static int take(const struct cli_option *o, const char *arg)
{
	switch (o->type) {
	case CLI_OPT_BOOL:
		if (o->value)
			*(int *)o->value = 1;
		return -1;
	case CLI_OPT_STRING: *(const char **)o->value = arg; return -1;
	case CLI_OPT_INT: return take_int(o, arg);
	case CLI_OPT_CHOICE: return take_choice(o, arg);
	case CLI_OPT_CALLBACK: return o->fn(o, arg);
	default: return -1;
	}
}

int cli_parse(const struct cli_usage *u, const struct cli_option *opts, int argc, char **argv)
{
	struct getopt_tables t;
	int c;
	build_tables(opts, u->stop_at_operand, &t);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, t.shorts, t.longs, NULL)) != -1) {
		if (c == '?' || c == ':')
			return wrong_option(c, argc, argv);
		const struct cli_option *o = option_of(opts, c);
		if (!o) { /* -h, --help */
			cli_print_help(stdout, u, opts);
			return finish_stdout(KG_EXIT_OK);
		}
		int rc = take(o, optarg);
		if (rc >= 0)
			return rc;
	}
	return -1;
}

int cli_usage_error(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	kg_err("%s (see kgantt %s --help)", msg, cli_command());
	return KG_EXIT_USAGE;
}

/* ------------------------------------------------------------------ the help */

/* A line "perfetto  trace-event JSON ...": the width of "perfetto  ", under which the
 * wrapped text hangs; 0 for plain text. */
static int hang_of(const char *p, const char *end)
{
	const char *w = p;
	while (w < end && *w != ' ')
		w++;
	const char *s = w;
	while (s < end && *s == ' ')
		s++;
	return s - w >= 2 && w - p <= 16 && s < end ? (int)(s - p) : 0;
}

/* text from column col (already reached) to HELP_WIDTH, each line after the first
 * indented to col. */
static void wrap(FILE *f, const char *text, int col)
{
	int first = 1;
	for (const char *p = text; *p;) {
		const char *end = strchr(p, '\n');
		end = end ? end : p + strlen(p);
		if (!first)
			fprintf(f, "%*s", col, "");
		first = 0;
		int hang = hang_of(p, end), at = col, fresh = 1;
		const char *w = p;
		if (hang) {
			fwrite(p, 1, (size_t)hang, f);
			at += hang;
			w = p + hang;
		}
		while (w < end) {
			const char *we = w;
			while (we < end && *we != ' ')
				we++;
			int len = (int)(we - w);
			if (!fresh && at + 1 + len > HELP_WIDTH) {
				fprintf(f, "\n%*s", col + hang, "");
				at = col + hang;
				fresh = 1;
			}
			if (!fresh) {
				fputc(' ', f);
				at++;
			}
			fwrite(w, 1, (size_t)len, f);
			at += len;
			fresh = 0;
			for (w = we; w < end && *w == ' '; w++)
				;
		}
		fputc('\n', f);
		p = *end ? end + 1 : end;
	}
}

static int label_of(const struct cli_option *o, char *buf, size_t n)
{
	if (o->label)
		return snprintf(buf, n, "%s", o->label);
	const char *a = o->argh ? o->argh : "";
	const char *pre = !o->argh ? "" : o->flags & CLI_OPT_OPTARG ? "[=" : " ";
	const char *post = o->argh && o->flags & CLI_OPT_OPTARG ? "]" : "";
	if (o->short_name && o->long_name)
		return snprintf(buf, n, "-%c, --%s%s%s%s", o->short_name, o->long_name, pre, a, post);
	if (o->short_name)
		return snprintf(buf, n, "-%c%s%s%s", o->short_name, o->argh ? " " : "", a, post);
	return snprintf(buf, n, "    --%s%s%s%s", o->long_name, pre, a, post);
}

static int shown(const struct cli_option *o)
{
	return o->type != CLI_OPT_GROUP && o->help && !(o->flags & CLI_OPT_HIDDEN);
}

static void option_line(FILE *f, const char *label, const char *help, int col)
{
	int len = fprintf(f, "  %s", label);
	if (len + 2 > col)
		fprintf(f, "\n%*s", col, "");
	else
		fprintf(f, "%*s", col - len, "");
	wrap(f, help, col);
}

void cli_print_help(FILE *f, const struct cli_usage *u, const struct cli_option *opts)
{
	char label[128];
	int col = 20, grouped = 0;
	for (int i = 0; opts[i].type != CLI_OPT_END; i++)
		if (shown(&opts[i])) {
			int need = 2 + label_of(&opts[i], label, sizeof(label)) + 2;
			col = need > col ? need : col;
		}
	col = col > 30 ? 30 : col;
	for (int i = 0; u->usage[i]; i++)
		fprintf(f, "%s kgantt %s\n", i ? "      " : "usage:", u->usage[i]);
	if (u->about)
		fprintf(f, "\n%s", u->about);
	fputc('\n', f);
	for (int i = 0;; i++) {
		const struct cli_option *o = &opts[i];
		if (!grouped && (o->type == CLI_OPT_GROUP || o->type == CLI_OPT_END)) {
			option_line(f, "-h, --help", "this help", col);
			grouped = 1;
		}
		if (o->type == CLI_OPT_END)
			break;
		if (o->type == CLI_OPT_GROUP) {
			fputc('\n', f);
			wrap(f, o->help, 0);
		} else if (shown(o)) {
			label_of(o, label, sizeof(label));
			option_line(f, label, o->help, col);
		}
	}
	if (u->footer)
		fprintf(f, "\n%s", u->footer);
}

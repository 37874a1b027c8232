/* A command's options as one table, as git's parse-options: each entry is both what the
 * parser (getopt_long) takes and the option's line in --help, so that the two cannot
 * drift. The options several commands share are declared once, as macros that expand to
 * entries (session.h, job_session.h), and go into each table that takes them.
 *
 *   const struct cli_option opts[] = {
 *           OPT_STRING('o', "output", &out, "FILE", "the picture: .png, .svg or .pdf"),
 *           CLI_WINDOW_OPTIONS(&s),
 *           OPT_END(),
 *   };
 *   int rc = cli_parse(&usage, opts, argc, argv);   // -1: go on at argv[optind]
 *
 * -h/--help is every command's, printed after the options before the first group. */
#ifndef KGANTT_CLI_OPTIONS_H
#define KGANTT_CLI_OPTIONS_H

#include <stdio.h>

enum cli_opt_type {
	CLI_OPT_END,
	CLI_OPT_GROUP,    /* a heading in the help; the options after it are under it */
	CLI_OPT_BOOL,     /* int *: set to 1; NULL: accepted, changes nothing */
	CLI_OPT_STRING,   /* const char **: the value as given */
	CLI_OPT_INT,      /* int *: a whole number in [lo, hi] */
	CLI_OPT_CHOICE,   /* int *: the index of the value among choices */
	CLI_OPT_CALLBACK, /* fn(opt, value) takes it */
};

enum {
	CLI_OPT_OPTARG = 1, /* the value is optional (--hw or --hw=100us) */
	CLI_OPT_HIDDEN = 2, /* not in the help */
};

struct cli_option;
/* Takes one option's value (NULL when an optional value was not given): -1 to go on,
 * or an exit code after saying why not. */
typedef int (*cli_option_fn)(const struct cli_option *opt, const char *arg);

struct cli_option {
	enum cli_opt_type type;
	int short_name;              /* 'o', or 0 */
	const char *long_name;       /* "output", or NULL */
	void *value;                 /* where the value goes (the type says how) */
	const char *argh;            /* the value's name in the help ("FILE"); NULL: none */
	const char *help;            /* wrapped to the terminal's 80 columns; "\n" breaks a
				      * line, and a line "word  text" hangs its text under
				      * itself; NULL: said with the entry before (no line) */
	int flags;
	long lo, hi;                 /* INT: the range */
	const char *const *choices;  /* CHOICE: the values, NULL-terminated */
	const char *noun;            /* INT, CHOICE: what the value is, for errors ("a count") */
	cli_option_fn fn;            /* CALLBACK */
	const char *label;           /* the help's left column, when not made from the names */
};

/* The value's pointer type, checked: (1 ? v : (T *)0) warns when v is not a T *. */
#define CLI_PTR(T, v) ((void *)(1 ? (v) : (T *)0))

#define OPT_END() {.type = CLI_OPT_END}
#define OPT_GROUP(h) {.type = CLI_OPT_GROUP, .help = (h)}
#define OPT_BOOL(s, l, v, h)                                                              \
	{.type = CLI_OPT_BOOL, .short_name = (s), .long_name = (l),                        \
	 .value = CLI_PTR(int, v), .help = (h)}
#define OPT_STRING(s, l, v, a, h)                                                         \
	{.type = CLI_OPT_STRING, .short_name = (s), .long_name = (l),                      \
	 .value = CLI_PTR(const char *, v), .argh = (a), .help = (h)}
#define OPT_INT(s, l, v, a, lo_, hi_, h)                                                  \
	{.type = CLI_OPT_INT, .short_name = (s), .long_name = (l), .value = CLI_PTR(int, v), \
	 .argh = (a), .lo = (lo_), .hi = (hi_), .help = (h)}
/* A count: 0 to hi, "is not a count". */
#define OPT_COUNT(s, l, v, a, hi_, h)                                                     \
	{.type = CLI_OPT_INT, .short_name = (s), .long_name = (l), .value = CLI_PTR(int, v), \
	 .argh = (a), .lo = 0, .hi = (hi_), .noun = "a count", .help = (h)}
#define OPT_CHOICE(s, l, v, a, ch, noun_, h)                                              \
	{.type = CLI_OPT_CHOICE, .short_name = (s), .long_name = (l),                      \
	 .value = CLI_PTR(int, v), .argh = (a), .choices = (ch), .noun = (noun_), .help = (h)}
#define OPT_CALLBACK(s, l, v, a, f, h)                                                    \
	{.type = CLI_OPT_CALLBACK, .short_name = (s), .long_name = (l), .value = (v),      \
	 .argh = (a), .fn = (f), .help = (h)}

/* What the help says around the options. */
struct cli_usage {
	const char *const *usage; /* "plot TRACE -o OUTPUT [options]", ...: NULL-terminated */
	const char *about;        /* the paragraph under the usage lines, as written */
	const char *footer;       /* after the options (exit status, docs), as written */
	int stop_at_operand;      /* options end at the first operand (record's PROGRAM) */
};

/* Parses argv (argv[0] the command) by opts, in order: -1 with optind at the first
 * operand; KG_EXIT_OK after --help printed the help on stdout; or KG_EXIT_USAGE after one
 * line saying what is wrong ("kgantt: report: unknown option '--jsn' (see kgantt
 * report --help)"), never the whole help. */
int cli_parse(const struct cli_usage *u, const struct cli_option *opts, int argc, char **argv);
void cli_print_help(FILE *f, const struct cli_usage *u, const struct cli_option *opts);
/* A wrong command line found after the options: one line, with where to look.
 * KG_EXIT_USAGE. */
int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "--output", or "-o" for an option without a long name: for messages. */
const char *cli_option_name(const struct cli_option *opt, char buf[64]);

#endif

/* main.c -- heapfmt-graph: why is it alive. The command line; the
 * subcommands are in referrers.c, path.c, dominators.c, owners.c and
 * leaked.c. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli_ctx.h"
#include "cli_exit.h"
#include "cli_file.h"
#include "cli_msg.h"
#include "cli_num.h"
#include "cli_rows.h"
#include "cmd.h"
#include "out.h"
#include "page_pool.h"

#define MAX_CLASSES 64

static void usage(void)
{
    printf(
        "Usage: %s COMMAND [OPTION]... DUMP...\n"
        "Answer why objects are alive, from the references in a heapfmt "
        "dump.\n"
        "\n"
        "Commands:\n"
        "  referrers DUMP ID...     what references these objects\n"
        "  referrers --class=NAME DUMP\n"
        "                           what references the objects of class "
        "NAME\n"
        "  path DUMP ID...          the shortest path from a root to each "
        "object\n"
        "  dominators DUMP          the objects that retain the most memory\n"
        "                           (retained size: what freeing them frees)\n"
        "  owners D1 D2 D3          who holds the objects new in D2 and still\n"
        "                           alive in D3, with the path to each owner\n"
        "  leaked DUMP              the objects no root reaches, by class, and\n"
        "                           the heads: those no other leaked one\n"
        "                           points at\n"
        "\n"
        "Options:\n"
        "  -f, --format=FMT     table (default), tsv, csv or json\n"
        "  -n, --top=N          at most N rows (dominators, leaked: 20,\n"
        "                       owners: 10; others: all)\n"
        "  -k, --paths=N        path: up to N distinct paths per object, each\n"
        "                       through a different reference to it\n"
        "      --weak           weak references hold what they reference:\n"
        "                       path, dominators, owners and leaked walk\n"
        "                       them too\n"
        "      --no-weak        referrers: leave weak references out\n"
        "      --no-class-refs  leave out each object's reference to its\n"
        "                       class\n"
        "  -b, --by=KEY         dominators: retained size by class, site or\n"
        "                       class,site instead of by object; leaked:\n"
        "                       group by class (default), site or both\n"
        "      --objects        leaked: one row per object, heads first\n"
        "      --class=NAME     referrers: the objects of class NAME\n"
        "      --temp-dir=DIR   dominators: keep only what must be random-\n"
        "                       access in memory, stream the rest through\n"
        "                       files in DIR (a heap larger than memory)\n"
        "  -h, --help           show this help and exit\n"
        "  -V, --version        show the version and exit\n"
        "\n"
        "IDs are 0x-prefixed hexadecimal or decimal. DUMP may be - for\n"
        "standard input (owners: D1 or D2 only). Weak references hold\n"
        "nothing unless --weak; referrers lists them, marked (weak).\n"
        "Exit status: 0 success, 1 error, 2 usage error, 3 a dump is\n"
        "incomplete (results cover its readable part).\n"
        "The manual: man heapfmt-graph.\n",
        cli_progname());
}

enum {
    OPT_NO_WEAK = 256,
    OPT_CLASS,
    OPT_OBJECTS,
    OPT_WEAK,
    OPT_NO_CLASS_REFS,
    OPT_TEMP_DIR
};

static const struct option long_options[] = {
    {"format", required_argument, NULL, 'f'},
    {"top", required_argument, NULL, 'n'},
    {"paths", required_argument, NULL, 'k'},
    {"weak", no_argument, NULL, OPT_WEAK},
    {"no-weak", no_argument, NULL, OPT_NO_WEAK},
    {"no-class-refs", no_argument, NULL, OPT_NO_CLASS_REFS},
    {"by", required_argument, NULL, 'b'},
    {"class", required_argument, NULL, OPT_CLASS},
    {"objects", no_argument, NULL, OPT_OBJECTS},
    {"temp-dir", required_argument, NULL, OPT_TEMP_DIR},
    CLI_STANDARD_LONG_OPTIONS,
};

typedef int (*command_fn)(const graph_query *, char *const *, int);

static const struct command {
    const char *name;
    command_fn run;
} commands[] = {
    {"referrers", cmd_referrers},
    {"path", cmd_path},
    {"dominators", cmd_dominators},
    {"owners", cmd_owners},
    {"leaked", cmd_leaked},
};

/* Parses the options; returns CLI_GO_ON, or the exit code after --help,
 * --version or a usage message. */
static int parse(int argc, char **argv, graph_query *opt,
                 const char **classes)
{
    int c;
    while ((c = cli_getopt(argc, argv, ":f:n:k:b:hV", long_options)) != -1) {
        switch (c) {
        case 'f':
            if (cli_row_format_option(optarg, &opt->format) != 0)
                return CLI_EXIT_USAGE;
            break;
        case 'n':
            if (cli_option_u64("--top", optarg, 1, UINT64_MAX, &opt->top) !=
                0)
                return CLI_EXIT_USAGE;
            opt->top_given = 1;
            break;
        case 'k':
            if (cli_option_u64("--paths", optarg, 1, 1000000,
                               &opt->npaths) != 0)
                return CLI_EXIT_USAGE;
            break;
        case OPT_WEAK:
            opt->weak = 1;
            break;
        case OPT_NO_WEAK:
            opt->no_weak = 1;
            break;
        case OPT_NO_CLASS_REFS:
            opt->no_class_refs = 1;
            break;
        case 'b':
            if (cli_summary_by_option(optarg, &opt->by) != 0)
                return CLI_EXIT_USAGE;
            break;
        case OPT_OBJECTS:
            opt->objects = 1;
            break;
        case OPT_TEMP_DIR:
            if (optarg[0] == '\0')
                return cli_usage_error("empty --temp-dir");
            opt->temp_dir = optarg;
            break;
        case OPT_CLASS:
            if (opt->nclasses == MAX_CLASSES)
                return cli_usage_error("too many --class options (at most %d)",
                                       MAX_CLASSES);
            classes[opt->nclasses++] = optarg;
            break;
        default: /* -h, -V, errors */
            return cli_standard_option(c, argv, usage);
        }
    }
    if (opt->weak && opt->no_weak)
        return cli_usage_error("--weak and --no-weak contradict each other");
    if (cli_check_operands((const char *const *)argv + optind,
                           (size_t)(argc - optind), "empty argument",
                           NULL) != 0)
        return CLI_EXIT_USAGE;
    return CLI_GO_ON;
}

int main(int argc, char **argv)
{
    cli_set_progname("heapfmt-graph");
    /* dominators and owners read a dump twice (the graph, then its
     * objects or labels): say what is wrong with it once */
    cli_warn_once();
    if (argc < 2)
        return cli_usage_error(
            "expected a command: referrers, path, dominators, "
            "owners or leaked");
    const struct command *cmd = NULL;
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            cmd = &commands[i];
    if (cmd == NULL && argv[1][0] != '-')
        return cli_usage_error(
            "unknown command '%s': expected referrers, path, "
            "dominators, owners or leaked",
            argv[1]);
    /* Without a command, only --help and --version make sense. */
    int shift = cmd != NULL;
    graph_query opt;
    memset(&opt, 0, sizeof opt);
    opt.format = CLI_ROW_TABLE;
    opt.npaths = 1;
    const char *classes[MAX_CLASSES];
    opt.classes = classes;
    int rc = parse(argc - shift, argv + shift, &opt, classes);
    if (rc != CLI_GO_ON)
        return rc;
    if (cmd == NULL)
        return cli_usage_error(
            "expected a command: referrers, path, dominators, "
            "owners or leaked");
    if (opt.nclasses > 0 && cmd->run != cmd_referrers)
        return cli_usage_error("--class applies to referrers only");
    if (opt.by != 0 && cmd->run != cmd_dominators && cmd->run != cmd_leaked)
        return cli_usage_error("--by applies to dominators and leaked only");
    if (opt.temp_dir != NULL && cmd->run != cmd_dominators)
        return cli_usage_error("--temp-dir applies to dominators only");
    if (opt.objects && (cmd->run != cmd_leaked || opt.by != 0))
        return cli_usage_error(
            "--objects applies to leaked only, without --by");
    argv += shift;
    argc -= shift;
    /* The phases' big arrays pass their pages on (page_pool.h). */
    static page_pool pool;
    const diff_mem mem = {page_pool_resize, &pool, page_pool_trim_hook};
    opt.mem = &mem;
    cli_ctx ctx; /* the engines' failures and warnings, said here */
    opt.ctx = cli_ctx_init(&ctx);
    rc = cmd->run(&opt, argv + optind, argc - optind);
    page_pool_trim(&pool);
    return cli_finish_stdout(rc);
}

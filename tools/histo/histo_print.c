/* histo_print.c -- choosing the output format. */
#include "histo_print.h"

int histo_print(FILE *out, const histo_table *t, const histo_options *opt)
{
    switch (opt->format) {
    case HISTO_FORMAT_TSV:
    case HISTO_FORMAT_CSV:
        return histo_print_delimited(out, t, opt,
                                     opt->format == HISTO_FORMAT_CSV);
    case HISTO_FORMAT_JSON:
        histo_print_json(out, t, opt);
        return 0;
    case HISTO_FORMAT_FOLDED:
        histo_print_folded(out, t, opt);
        return 0;
    case HISTO_FORMAT_TABLE:
        break;
    }
    return histo_print_table(out, t, opt);
}

/* cli_code.h -- Ruby's internal objects as the tools group them: histo
 * --by=imemo and --by=iseq, heapfmt-diff the same.
 *
 * A Ruby dump (bindings/ruby; heapfmt-import of ObjectSpace.dump_all for
 * the subtype) gives each T_IMEMO object a value that starts with its
 * subtype, dump_all's imemo_type ("iseq", "env", "ment", "callcache"...),
 * and each instruction sequence and Proc the place of its code, as
 * RubyVM::InstructionSequence#inspect shows it: "iseq LABEL@PATH:LINE",
 * "proc LABEL@PATH:LINE" (a T_DATA). The rows:
 *
 *   imemo  the subtype of a T_IMEMO ("iseq"); other objects are the row
 *          CLI_NOT_IMEMO, a T_IMEMO without a value "(no subtype)";
 *   iseq   the kind and PATH:LINE of an instruction sequence or Proc
 *          ("iseq app/models/user.rb:12", "proc lib/cache.rb:40"); the
 *          label (the method's name) is left out, so that the code eval'd
 *          at one place forms one row however its methods are named (Ruby
 *          3.3 names the place in PATH: "(eval at app/x.rb:7)", as a Ruby
 *          dump does under allocation tracing on older Ruby); other
 *          objects are the row CLI_NO_ISEQ.
 *
 * PATH may hold '@' (rvm's "ruby-3.1@gemset"), a label does not (a method
 * name cannot), so the location starts after the first '@'. */
#ifndef CLI_CODE_H
#define CLI_CODE_H

#include <stddef.h>

#include "heapfmt.h"

enum cli_code_by {
    CLI_CODE_IMEMO = 1, /* by T_IMEMO subtype */
    CLI_CODE_ISEQ       /* by code location */
};

#define CLI_NOT_IMEMO "(not T_IMEMO)"
#define CLI_NO_ISEQ "(no iseq)"

/* Longest key: a longer location is cut (a Ruby dump's are shorter). */
#define CLI_CODE_MAX 512

/* The row of object o under by: its name in *key (*len bytes), which
 * points into o's value, a constant, or buf (CLI_CODE_MAX bytes). Returns
 * 1, or 0 when o is of the "none" row (CLI_NOT_IMEMO, CLI_NO_ISEQ, also
 * in *key). */
int cli_code_key(enum cli_code_by by, const heapfmt_robject *o, char *buf,
                 const char **key, size_t *len);

#endif /* CLI_CODE_H */

/* hprof.h -- heapfmt-import of Java HPROF heap dumps.
 *
 * hprof_run() reads what jmap -dump, jcmd GC.heap_dump and
 * -XX:+HeapDumpOnOutOfMemoryError write (JAVA PROFILE 1.0.1 and 1.0.2,
 * heap dump segments, 4- or 8-byte ids; gzip, as jmap -dump:gz= writes
 * it, in members) through a read callback and writes the heap:
 *   CLASS DUMP     -> a CLASS record (name from LOAD CLASS, dotted as jmap
 *                     prints it: java.lang.String, [Ljava.lang.Object;)
 *                     and an OBJECT of class java.lang.Class, type "class",
 *                     its name as value preview, referencing its static
 *                     fields' objects (labelled with the field names), its
 *                     superclass ("<super>") and loader ("<classloader>")
 *   INSTANCE DUMP  -> an OBJECT, type "instance", referencing its fields'
 *                     objects, labelled with the field names
 *   OBJ ARRAY DUMP -> an OBJECT, type "object array", elements labelled by
 *                     index
 *   PRIM ARRAY DUMP-> an OBJECT, type "primitive array", class [I, [B...;
 *                     a byte[]'s first bytes as value preview
 *   GC roots       -> ROOT records named after the HPROF root kind ("jni
 *                     global", "java frame", "sticky class"...)
 * Sizes are what jmap -histo counts (jvm_layout.h: header, fields as the
 * JVM lays them out, alignment), under opt->jvm_model; META jvm.size_model
 * says which. Object ids are addresses that a GC moves: META ids_stable 0.
 *
 * Streaming: one read, never whole. Kept in memory: the UTF8 names, the
 * classes (fields and layouts), one record at a time; object records are
 * written as they are read. A class must be dumped before its instances
 * for their references to be decoded (HotSpot writes every CLASS DUMP
 * first); an instance of a class not dumped yet is written without
 * references and counted. */
#ifndef HPROF_H
#define HPROF_H

#include "heapfmt.h"
#include "import.h"
#include "lines.h"

/* Whether the n bytes at p begin an HPROF dump ("JAVA PROFILE 1.0."). */
int hprof_magic(const char *p, size_t n);

/* import_run for an HPROF dump: the same results and options (a
 * diagnostic's line is 0 and its text names the byte offset, counted in
 * the decoded dump when it was gzip); st->lines stays 0. opt and st are
 * not NULL and st is zeroed (import_run sees to both). */
int hprof_run(heapfmt_writer *w, lr_read_fn read, void *opaque,
              const import_options *opt, import_stats *st);

#endif /* HPROF_H */

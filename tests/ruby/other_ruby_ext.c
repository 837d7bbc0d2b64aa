/* other_ruby_ext.c -- a file that claims to be a heapfmt extension built
 * for Ruby 2.7, for tests/cli/ruby_attach.sh: heapfmt-ruby must refuse to
 * load it into another Ruby (it reads the claim, never loads the file). */
__attribute__((visibility("default"))) const int heapfmt_ruby_api_version[3] = {2, 7, 0};

/* sleep32.c -- a 32-bit x86 process that waits forever (pause(2) through
 * int 0x80), built with -m32 -nostdlib for tests/cli/ruby_attach.sh. */
void _start(void)
{
    for (;;)
        __asm__ volatile("movl $29, %%eax\n\tint $0x80" ::: "eax", "memory");
}

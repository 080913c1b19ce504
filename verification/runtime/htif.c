// HTIF system-call proxy for bare-metal C with picolibc: stdout/stderr go to the host
// through the write system call, exit through tohost. Output is line-buffered because
// every proxied call costs a round trip through the host's polling loop.

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

volatile uint64_t tohost __attribute__((section(".tohost"), aligned(64)));
volatile uint64_t fromhost __attribute__((section(".tohost"), aligned(64)));

#define SYS_WRITE 64

static uint64_t htif_syscall(uint64_t n, uint64_t a0, uint64_t a1, uint64_t a2)
{
    // The host reads the call block from memory: number, then arguments.
    volatile uint64_t block[8] __attribute__((aligned(64)));
    block[0] = n;
    block[1] = a0;
    block[2] = a1;
    block[3] = a2;
    __sync_synchronize();
    tohost = (uintptr_t)block;
    while (fromhost == 0)
        ;
    fromhost = 0;
    __sync_synchronize();
    return block[0];
}

static char out_buf[128];
static unsigned out_len;

static void out_flush(void)
{
    if (out_len) {
        htif_syscall(SYS_WRITE, 1, (uintptr_t)out_buf, out_len);
        out_len = 0;
    }
}

static int htif_putc(char c, FILE *file)
{
    (void)file;
    out_buf[out_len++] = c;
    if (c == '\n' || out_len == sizeof(out_buf))
        out_flush();
    return (unsigned char)c;
}

static int htif_fflush(FILE *file)
{
    (void)file;
    out_flush();
    return 0;
}

static FILE htif_stdio = FDEV_SETUP_STREAM(htif_putc, NULL, htif_fflush, _FDEV_SETUP_WRITE);
FILE *const stdin = &htif_stdio;
FILE *const stdout = &htif_stdio;
FILE *const stderr = &htif_stdio;

void _exit(int code)
{
    out_flush();
    // Exit command: payload = code << 1 | 1 (the code is kept to 32 bits so that a
    // negative code cannot spill into the device/command fields).
    tohost = ((uint64_t)(uint32_t)code << 1) | 1;
    for (;;)
        ;
}

